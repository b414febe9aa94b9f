#include <gtest/gtest.h>
#include "mask_mean.h"
TEST(Placeholder, Builds) { EXPECT_EQ(poslsh::AlibiKernel(4, 2.0).rows(), 4); }
