// SHA-256 against the FIPS 180-4 example vectors and against itself split at
// every boundary (the padding is where hand-written digests go wrong).
#include <unistd.h>
#include <gtest/gtest.h>
#include <poslsh/input_error.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runner/sha256.h"

namespace poslsh {
namespace {

TEST(Sha256, FipsExampleVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, ChunkingDoesNotChangeTheDigest) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += static_cast<char>(i * 37 + 11);
  for (std::size_t len : {55u, 56u, 63u, 64u, 65u, 119u, 120u, 128u, 200u}) {
    const std::string part = text.substr(0, len);
    const std::string whole = sha256_hex(part);
    for (std::size_t cut = 0; cut <= len; cut += 7) {
      Sha256 s;
      s.update(part.substr(0, cut));
      s.update(part.substr(cut));
      EXPECT_EQ(s.hex(), whole) << len << " cut at " << cut;
    }
  }
}

TEST(Sha256, FilesAndUnreadablePaths) {
  const auto path = std::filesystem::temp_directory_path() / ("poslsh_sha256_test_" + std::to_string(::getpid()) + ".bin");
  std::ofstream(path, std::ios::binary) << "abc";
  EXPECT_EQ(sha256_file(path.string(), "rerun"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::filesystem::remove(path);
  try {
    sha256_file(path.string(), "rerun");
    ADD_FAILURE() << "read a missing file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rerun: '"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace poslsh
