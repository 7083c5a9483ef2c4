// FNV-1a over bytes; see digest.h.
#include "schema/digest.h"

#include <fmt/format.h>

#include <cstdint>

namespace vitsim::schema {

std::string digest_text(const std::string& text) {
  uint64_t h = 14695981039346656037ULL;  // FNV-1a, 64 bits: offset basis and prime
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("fnv1a64:{:016x}", h);
}

}  // namespace vitsim::schema
