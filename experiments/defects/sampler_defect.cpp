#include "sampler_defect.h"

#include <poslsh/rng.h>

#include <algorithm>
#include <cmath>

namespace poslsh {

const std::vector<SamplerDefect>& all_sampler_defects() {
  static const std::vector<SamplerDefect> all = {SamplerDefect::kPitchScale102,
                                                 SamplerDefect::kPitchScale105,
                                                 SamplerDefect::kPitchScale095,
                                                 SamplerDefect::kExponentialPitch,
                                                 SamplerDefect::kGamma3Pitch,
                                                 SamplerDefect::kZeroShift,
                                                 SamplerDefect::kUnitShift,
                                                 SamplerDefect::kRepeatedHashes,
                                                 SamplerDefect::kSharedShift,
                                                 SamplerDefect::kRepeatedTrials,
                                                 SamplerDefect::kRepeatLag64,
                                                 SamplerDefect::kPitchCap10,
                                                 SamplerDefect::kRepeatLag4096,
                                                 SamplerDefect::kFirstHashZeroShift,
                                                 SamplerDefect::kFirstHashExponential,
                                                 SamplerDefect::kGamma3PitchSigmaAtLeast32,
                                                 SamplerDefect::kGamma3PitchSigmaBelow2,
                                                 SamplerDefect::kSecondHashZeroShift,
                                                 SamplerDefect::kHash300Exponential,
                                                 SamplerDefect::kTrialLow32Bits,
                                                 SamplerDefect::kPitchScale105OddPow2,
                                                 SamplerDefect::kPitchScale105Fractional,
                                                 SamplerDefect::kPitchCap14,
                                                 SamplerDefect::kPitchClamp14,
                                                 SamplerDefect::kPitchScale105Sigma64To256,
                                                 SamplerDefect::kPackedKey513,
                                                 SamplerDefect::kRepeatLag500};
  return all;
}

std::string sampler_defect_name(SamplerDefect defect) {
  switch (defect) {
    case SamplerDefect::kNone:
      return "sound";
    case SamplerDefect::kPitchScale102:
      return "pitch-x1.02";
    case SamplerDefect::kPitchScale105:
      return "pitch-x1.05";
    case SamplerDefect::kPitchScale095:
      return "pitch-x0.95";
    case SamplerDefect::kExponentialPitch:
      return "exponential-pitch";
    case SamplerDefect::kGamma3Pitch:
      return "gamma3-pitch";
    case SamplerDefect::kZeroShift:
      return "zero-shift";
    case SamplerDefect::kUnitShift:
      return "unit-shift";
    case SamplerDefect::kRepeatedHashes:
      return "repeated-hashes";
    case SamplerDefect::kSharedShift:
      return "shared-shift";
    case SamplerDefect::kRepeatedTrials:
      return "repeated-trials";
    case SamplerDefect::kRepeatLag64:
      return "repeat-lag-64";
    case SamplerDefect::kPitchCap10:
      return "pitch-cap-10sigma";
    case SamplerDefect::kRepeatLag4096:
      return "repeat-lag-4096";
    case SamplerDefect::kFirstHashZeroShift:
      return "first-hash-zero-shift";
    case SamplerDefect::kFirstHashExponential:
      return "first-hash-exponential-pitch";
    case SamplerDefect::kGamma3PitchSigmaAtLeast32:
      return "gamma3-pitch-sigma-ge-32";
    case SamplerDefect::kGamma3PitchSigmaBelow2:
      return "gamma3-pitch-sigma-lt-2";
    case SamplerDefect::kSecondHashZeroShift:
      return "hash-1-zero-shift";
    case SamplerDefect::kHash300Exponential:
      return "hash-300-exponential-pitch";
    case SamplerDefect::kTrialLow32Bits:
      return "trial-low-32-bits";
    case SamplerDefect::kPitchScale105OddPow2:
      return "pitch-x1.05-sigma-odd-pow2";
    case SamplerDefect::kPitchScale105Fractional:
      return "pitch-x1.05-fractional-sigma";
    case SamplerDefect::kPitchCap14:
      return "pitch-cap-14sigma";
    case SamplerDefect::kPitchClamp14:
      return "pitch-clamp-14sigma";
    case SamplerDefect::kPitchScale105Sigma64To256:
      return "pitch-x1.05-sigma-64-256";
    case SamplerDefect::kPackedKey513:
      return "packed-key-513";
    case SamplerDefect::kRepeatLag500:
      return "repeat-lag-500";
  }
  return "unknown";
}

namespace {

// The defects confined to some hash indices or to some sigma: a
// whole-sampler defect where they apply, the sound hash elsewhere.
PositionalHash draw_confined_hash(std::uint64_t seed, std::uint64_t trial, std::uint64_t k,
                                  double sigma, SamplerDefect defect) {
  switch (defect) {
    case SamplerDefect::kFirstHashZeroShift:
      return k == 0 ? draw_hash(seed, trial, k, sigma, SamplerDefect::kZeroShift)
                    : draw_hash(seed, trial, k, sigma);
    case SamplerDefect::kFirstHashExponential:
      return draw_hash(seed, trial, k, sigma,
                       k == 0 ? SamplerDefect::kExponentialPitch : SamplerDefect::kNone);
    case SamplerDefect::kGamma3PitchSigmaAtLeast32:
      return draw_hash(seed, trial, k, sigma,
                       sigma >= 32 ? SamplerDefect::kGamma3Pitch : SamplerDefect::kNone);
    case SamplerDefect::kGamma3PitchSigmaBelow2:
      return draw_hash(seed, trial, k, sigma,
                       sigma < 2 ? SamplerDefect::kGamma3Pitch : SamplerDefect::kNone);
    case SamplerDefect::kSecondHashZeroShift:
      return draw_hash(seed, trial, k, sigma,
                       k == 1 ? SamplerDefect::kZeroShift : SamplerDefect::kNone);
    case SamplerDefect::kHash300Exponential:
      return draw_hash(seed, trial, k, sigma,
                       k == 300 ? SamplerDefect::kExponentialPitch : SamplerDefect::kNone);
    case SamplerDefect::kPitchScale105Sigma64To256:
      return draw_hash(seed, trial, k, sigma,
                       sigma > 64 && sigma < 256 ? SamplerDefect::kPitchScale105
                                                 : SamplerDefect::kNone);
    case SamplerDefect::kPitchScale105OddPow2:
    case SamplerDefect::kPitchScale105Fractional: {
      int exponent = 0;
      const bool pow2 = std::frexp(sigma, &exponent) == 0.5;  // sigma = 2^(exponent - 1)
      const bool hit = defect == SamplerDefect::kPitchScale105OddPow2
                           ? pow2 && (exponent - 1) % 2 != 0
                           : sigma != std::floor(sigma);
      return draw_hash(seed, trial, k, sigma,
                       hit ? SamplerDefect::kPitchScale105 : SamplerDefect::kNone);
    }
    default:
      return draw_hash(seed, trial, k, sigma);
  }
}

}  // namespace

PositionalHash draw_hash(std::uint64_t seed, std::uint64_t trial, std::uint64_t k, double sigma,
                         SamplerDefect defect) {
  switch (defect) {
    case SamplerDefect::kNone:
      return draw_hash(seed, trial, k, sigma);
    case SamplerDefect::kPitchScale102:
    case SamplerDefect::kPitchScale105:
    case SamplerDefect::kPitchScale095: {
      const double f = defect == SamplerDefect::kPitchScale102   ? 1.02
                       : defect == SamplerDefect::kPitchScale105 ? 1.05
                                                                 : 0.95;
      const PositionalHash h = draw_hash(seed, trial, k, sigma);
      return {h.pitch * f, h.shift * f};
    }
    case SamplerDefect::kExponentialPitch:
    case SamplerDefect::kGamma3Pitch: {
      Stream rng(seed, trial, k, StreamPurpose::kHash);
      const bool exp = defect == SamplerDefect::kExponentialPitch;
      double g = -std::log(rng.uniform_pos());
      if (!exp) g -= std::log(rng.uniform_pos()) + std::log(rng.uniform_pos());
      // U = 1 gives g = 0, a zero pitch (probability 2^-53 for one uniform):
      // the same clamp as the sound sampler's (kSmallestGamma2).
      g = std::max(g, kSmallestGamma2);
      const double pitch = exp ? 2 * sigma * g : 2 * sigma * g / 3;
      return {pitch, pitch * rng.uniform()};
    }
    case SamplerDefect::kZeroShift:
      return {draw_hash(seed, trial, k, sigma).pitch, 0.0};
    case SamplerDefect::kUnitShift: {
      // u3 in [0, 1) as the shift, folded into [0, pitch) when the pitch is
      // below 1: the same partition, and the range every routine expects.
      const PositionalHash h = draw_hash(seed, trial, k, sigma);
      return {h.pitch, std::fmod(h.shift / h.pitch, h.pitch)};
    }
    case SamplerDefect::kRepeatedHashes:
      return draw_hash(seed, trial, k & ~std::uint64_t{1}, sigma);
    case SamplerDefect::kSharedShift: {
      const PositionalHash h = draw_hash(seed, trial, k, sigma);
      const PositionalHash leader = draw_hash(seed, trial, k & ~std::uint64_t{3}, sigma);
      return {h.pitch, h.pitch * (leader.shift / leader.pitch)};
    }
    case SamplerDefect::kRepeatedTrials:
      return draw_hash(seed, 0, k, sigma);
    case SamplerDefect::kRepeatLag64:
      return draw_hash(seed, trial, k % 128 >= 64 ? k - 64 : k, sigma);
    case SamplerDefect::kRepeatLag4096:
      return draw_hash(seed, trial, k % 8192 >= 4096 ? k - 4096 : k, sigma);
    case SamplerDefect::kFirstHashZeroShift:
    case SamplerDefect::kFirstHashExponential:
    case SamplerDefect::kGamma3PitchSigmaAtLeast32:
    case SamplerDefect::kGamma3PitchSigmaBelow2:
    case SamplerDefect::kSecondHashZeroShift:
    case SamplerDefect::kHash300Exponential:
    case SamplerDefect::kPitchScale105OddPow2:
    case SamplerDefect::kPitchScale105Fractional:
    case SamplerDefect::kPitchScale105Sigma64To256:
      return draw_confined_hash(seed, trial, k, sigma, defect);
    case SamplerDefect::kPitchCap10:
    case SamplerDefect::kPitchCap14: {
      // Redraws from streams no sound hash uses (k + j 2^48; k stays below 2^48).
      const double cap = (defect == SamplerDefect::kPitchCap10 ? 10 : 14) * sigma;
      PositionalHash h = draw_hash(seed, trial, k, sigma);
      for (std::uint64_t j = 1; h.pitch > cap; ++j)
        h = draw_hash(seed, trial, k + (j << 48), sigma);
      return h;
    }
    case SamplerDefect::kTrialLow32Bits:
      return draw_hash(seed, trial & 0xffffffffULL, k, sigma);
    case SamplerDefect::kPitchClamp14: {
      const PositionalHash h = draw_hash(seed, trial, k, sigma);
      if (!(h.pitch > 14 * sigma)) return h;
      return {14 * sigma, 14 * sigma * (h.shift / h.pitch)};
    }
    case SamplerDefect::kPackedKey513:
      return draw_hash(seed, 0, trial * 513 + k, sigma);  // wraps mod 2^64, as a packed key would
    case SamplerDefect::kRepeatLag500:
      return draw_hash(seed, trial, k % 1000 >= 500 ? k - 500 : k, sigma);
  }
  return draw_hash(seed, trial, k, sigma);
}

HashDrawer hash_drawer(std::uint64_t seed, SamplerDefect defect) {
  return [seed, defect](std::uint64_t trial, std::uint64_t k, double sigma) {
    return draw_hash(seed, trial, k, sigma, defect);
  };
}

}  // namespace poslsh
