// Bounded whole-file reading; see text_file.h.
#include "schema/text_file.h"

#include <sys/stat.h>

#include <fstream>

#include "schema/input_error.h"

namespace vitsim::schema {

std::string read_text_file(const std::string& path, size_t max_bytes, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 &&
      (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode))) {
    throw InputError(path + ": not a file (" + (S_ISDIR(st.st_mode) ? "a folder" : "a device") +
                     ") (hint: expected " + what + "; check the path)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file (hint: check the path)");
  // Read in chunks up to the limit, so that an endless pipe is refused too.
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes) {
      throw InputError(path + ": larger than " + std::to_string(max_bytes >> 20) +
                       " MiB (hint: expected " + what + "; is this the right file?)");
    }
  }
  return text;
}

}  // namespace vitsim::schema
