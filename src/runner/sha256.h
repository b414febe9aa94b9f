// SHA-256 (FIPS 180-4) of bytes and of files: the checksums that .meta.json
// sidecars record for every input file, so a rerun can prove it read the same
// inputs. (A few dozen lines here instead of a crypto library dependency: only
// the digest is needed, and it is checked against the FIPS test vectors.)
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace poslsh {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // The digest as 64 lowercase hex digits; the object must not be updated after.
  std::string hex();

 private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;
};

std::string sha256_hex(std::string_view bytes);

// SHA-256 of a file's bytes; throws InputError naming `component` and the
// path when it cannot be read.
std::string sha256_file(const std::string& path, const std::string& component);

}  // namespace poslsh
