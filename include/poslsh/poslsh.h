// The whole public API of poslsh::core: positional hashes, the mask mean and
// the ALiBi kernel as matrix-free operators, spectral and max-norm errors with
// their bounds, the block-size law, exact and positional-LSH ALiBi attention
// with their certificates, and the .npy reader. Include what you use, or this.
#pragma once

#include <poslsh/alibi_heads.h>
#include <poslsh/alibi_kernel.h>
#include <poslsh/argument_error.h>
#include <poslsh/attention_options.h>
#include <poslsh/attention_bounds.h>
#include <poslsh/band_attention.h>
#include <poslsh/baseline_attention.h>
#include <poslsh/block_size.h>
#include <poslsh/block_size_law.h>
#include <poslsh/bounds.h>
#include <poslsh/error_operator.h>
#include <poslsh/exact_attention.h>
#include <poslsh/hash_parameters.h>
#include <poslsh/input_error.h>
#include <poslsh/kernel.h>
#include <poslsh/lsh_attention.h>
#include <poslsh/mask_mean.h>
#include <poslsh/max_error.h>
#include <poslsh/npy.h>
#include <poslsh/pitch_law.h>
#include <poslsh/positional_hash.h>
#include <poslsh/rng.h>
#include <poslsh/spectral_error.h>
#include <poslsh/types.h>
