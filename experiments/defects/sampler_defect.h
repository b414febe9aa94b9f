// Deliberately wrong samplers: the negative controls of `poslsh power` and of
// the check tests. A check is worth the defects it catches, so each defect
// here is one a real implementation could plausibly have (a wrong pitch
// scale or law, a shift not drawn over [0, delta), hashes that are not
// independent). Nothing outside power measurement and tests draws from them.
#pragma once

#include <poslsh/positional_hash.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace poslsh {

enum class SamplerDefect {
  kNone,              // the sound sampler: draw_hash
  kPitchScale102,     // pitch x 1.02, so E[M] = exp(-t / 1.02 sigma)
  kPitchScale105,     // pitch x 1.05
  kPitchScale095,     // pitch x 0.95
  kExponentialPitch,  // pitch ~ Exponential(mean 2 sigma): right mean, wrong law
  kGamma3Pitch,       // pitch ~ Gamma(3, 2 sigma / 3): right mean, wrong law
  kZeroShift,         // shift = 0: a block always starts at position 0
  kUnitShift,         // shift ~ Uniform[0, 1) instead of [0, delta)
  kRepeatedHashes,    // hash 2j+1 equals hash 2j: s/2 independent hashes
  kSharedShift,       // the shift fraction u3 is shared by groups of 4 hashes
  kRepeatedTrials,    // the hash stream ignores the trial index: every trial the same
  kRepeatLag64,       // hash k equals hash k - 64 whenever k mod 128 >= 64
  kPitchCap10,        // pitches redrawn while above 10 sigma: right bulk, no far tail
  kRepeatLag4096,     // hash k equals hash k - 4096 whenever k mod 8192 >= 4096
  // Bugs confined to one hash of every trial (hash 0, the first of the s):
  kFirstHashZeroShift,    // hash 0 of every trial has shift 0
  kFirstHashExponential,  // hash 0 of every trial has an Exponential(mean 2 sigma) pitch
  // Bugs confined to a range of sigma (a fast path taken only there):
  kGamma3PitchSigmaAtLeast32,  // pitch ~ Gamma(3, 2 sigma / 3) when sigma >= 32
  kGamma3PitchSigmaBelow2,     // pitch ~ Gamma(3, 2 sigma / 3) when sigma < 2
  // Bugs confined to one hash index other than the first (an off-by-one in
  // which hash is special, a table indexed from 1):
  kSecondHashZeroShift,      // hash 1 of every trial has shift 0
  kHash300Exponential,       // hash 300 of every trial has an Exponential(mean 2 sigma) pitch
  kTrialLow32Bits,           // the stream keeps the trial's low 32 bits: trial t + 2^32 repeats t
  kPitchScale105OddPow2,     // pitch x 1.05 when sigma = 2^m, m odd (a table keyed on even m)
  kPitchScale105Fractional,  // pitch x 1.05 when sigma is not an integer (Press slopes, H = 12)
  kPitchCap14,               // pitches redrawn while above 14 sigma: a tail of 1.2e-5 missing
  // Defects the per-sigma law lines could not see (a law checked at each
  // sigma alone on 2^21 hashes, a sigma on no grid, a repeat at a lag that is
  // not a power of two, a trial and index packed into one key):
  kPitchClamp14,              // pitch = min(pitch, 14 sigma), the shift fraction kept: an atom at 14
  kPitchScale105Sigma64To256,  // pitch x 1.05 when 64 < sigma < 256 (sigma = 128: H = 8's 4th head)
  kPackedKey513,              // one key t * 513 + k for (trial t, index k): hash(t, k + 513) = hash(t + 1, k)
  kRepeatLag500,              // hash k equals hash k - 500 whenever k mod 1000 >= 500
};

// Every defect except kNone, in declaration order.
const std::vector<SamplerDefect>& all_sampler_defects();
// "sound", "pitch-x1.02", ..., as in power.csv.
std::string sampler_defect_name(SamplerDefect defect);

// Hash k of (seed, trial) at scale sigma under the defect; kNone is exactly
// draw_hash(seed, trial, k, sigma).
PositionalHash draw_hash(std::uint64_t seed, std::uint64_t trial, std::uint64_t k, double sigma,
                         SamplerDefect defect);

// How a caller that measures hashes gets them: hash k of trial at sigma. The
// experiments take one so that power measurements and tests can plant defects.
using HashDrawer =
    std::function<PositionalHash(std::uint64_t trial, std::uint64_t k, double sigma)>;
HashDrawer hash_drawer(std::uint64_t seed, SamplerDefect defect = SamplerDefect::kNone);

}  // namespace poslsh
