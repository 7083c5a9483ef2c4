// libFuzzer target: the SimGrid XML export (`vitsim platform --export-xml`; sim/platform_xml.h)
// of cluster files. A cluster the reader accepts is planned with every node and exported; the
// export either refuses it (std::invalid_argument: a name XML cannot hold, a document past
// kMaxPlatformXmlElements; exit 2 in the command) or writes a well-formed document: tags nest,
// attribute values hold no '<' and no bare '&', every '&' starts an entity, and the elements it
// counts in advance (one a line) are the document's lines. Clusters of more than 256 nodes are
// skipped: planning them takes seconds, past the fuzzer's time per input (the bound itself is
// tested in tests/sim/platform_xml_test.cpp and tests/cli/bounded_readers_test.cpp).
#include <algorithm>
#include <cctype>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fuzz_support.h"
#include "schema/cluster.h"
#include "sim/placement.h"
#include "sim/platform_plan.h"
#include "sim/platform_xml.h"

namespace {

[[noreturn]] void fail(const char* why, const std::string& xml) {
  std::fprintf(stderr, "platform_xml wrote a document that is not well-formed: %s\n%s\n", why,
               xml.substr(0, 4000).c_str());
  std::abort();
}

// '&' starts an entity: &name; or &#digits;.
bool entity_at(const std::string& s, size_t at) {
  const size_t end = s.find(';', at);
  if (end == std::string::npos || end == at + 1 || end - at > 8) return false;
  for (size_t i = at + 1; i < end; ++i)
    if (!std::isalnum(static_cast<unsigned char>(s[i])) && s[i] != '#') return false;
  return true;
}

// The subset of XML the writer emits: a declaration, a DOCTYPE, comments, elements whose
// attributes are double-quoted, text between them.
void check_well_formed(const std::string& xml) {
  std::vector<std::string> open;
  for (size_t i = 0; i < xml.size();) {
    if (xml[i] != '<') {
      if (xml[i] == '&' && !entity_at(xml, i)) fail("a bare '&' in text", xml);
      ++i;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0 || xml.compare(i, 2, "<?") == 0 ||
        xml.compare(i, 9, "<!DOCTYPE") == 0) {
      const size_t end = xml.find('>', i);
      if (end == std::string::npos) fail("an unclosed declaration", xml);
      i = end + 1;
      continue;
    }
    const bool closing = xml[i + 1] == '/';
    size_t j = i + (closing ? 2 : 1);
    const size_t name_end = xml.find_first_of(" />", j);
    if (name_end == std::string::npos) fail("an unclosed tag", xml);
    const std::string name = xml.substr(j, name_end - j);
    j = name_end;
    while (j < xml.size() && xml[j] != '>' && xml[j] != '/') {  // attributes
      if (xml[j] == ' ') {
        ++j;
        continue;
      }
      const size_t eq = xml.find("=\"", j);
      if (eq == std::string::npos) fail("an attribute without a quoted value", xml);
      const size_t close = xml.find('"', eq + 2);
      if (close == std::string::npos) fail("an unterminated attribute value", xml);
      for (size_t k = eq + 2; k < close; ++k) {
        if (xml[k] == '<') fail("a '<' in an attribute value", xml);
        if (xml[k] == '&' && !entity_at(xml, k)) fail("a bare '&' in an attribute value", xml);
      }
      j = close + 1;
      if (j < xml.size() && xml[j] != ' ' && xml[j] != '/' && xml[j] != '>')
        fail("an attribute value that ends early (a raw '\"')", xml);
    }
    if (j >= xml.size()) fail("an unclosed tag", xml);
    const bool empty = xml[j] == '/';
    if (closing) {
      if (open.empty() || open.back() != name) fail("tags that do not nest", xml);
      open.pop_back();
    } else if (!empty) {
      open.push_back(name);
    }
    i = xml.find('>', j) + 1;
  }
  if (!open.empty()) fail("an element left open", xml);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace vitsim;
  fuzz::refusals_are_input_errors([&] {
    const schema::ClusterSpec c =
        schema::read_cluster(schema::Node::parse_text(fuzz::as_text(data, size), "fuzz.json"));
    sim::Placement all;
    all.nodes = sim::expand_nodes(c);
    if (all.nodes.size() > 256) return;
    std::string xml;
    uint64_t counted = 0;
    try {
      const sim::PlatformPlan plan = sim::plan_platform(c, all, nullptr, /*all_nodes=*/true);
      counted = sim::platform_xml_elements(plan);
      xml = sim::platform_xml(plan);
    } catch (const std::invalid_argument&) {
      return;  // refused, as the command refuses it (exit 2)
    }
    check_well_formed(xml);
    if (static_cast<uint64_t>(std::count(xml.begin(), xml.end(), '\n')) != counted)
      fail("lines other than the elements counted in advance", xml);
  });
  return 0;
}
