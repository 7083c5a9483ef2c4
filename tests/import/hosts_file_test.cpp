// The hosts file of `vitsim cluster init` (import/hosts_file.h, issue 68 class 6): statements,
// comments and blank lines; a control byte, a line over 4 KiB and more lines than a cluster has
// nodes are refused naming the file and the line, the control byte shown escaped.
#include "import/hosts_file.h"

#include <gtest/gtest.h>

#include "error_of.h"  // tests/support/
#include "schema/input_error.h"

namespace vitsim::import {
namespace hosts_file_test {
namespace {

std::string error_of(const std::string& text) {
  return vitsim::test::error_of<schema::InputError>([&] { parse_hosts_file(text, "h.txt"); });
}

TEST(HostsFile, StatementsCommentsAndBlankLines) {
  EXPECT_EQ(
      parse_hosts_file("# lab\nh1:rtx3070:10gbe\n\n  h2:2xt4:1gbe  # two\r\nh3:p4:1gbe", "h.txt"),
      (std::vector<std::string>{"h1:rtx3070:10gbe", "h2:2xt4:1gbe", "h3:p4:1gbe"}));
  EXPECT_TRUE(parse_hosts_file("", "h.txt").empty());
  EXPECT_TRUE(parse_hosts_file("\n\n# nothing\n", "h.txt").empty());
}

TEST(HostsFile, WhatIsNoHostStatementIsRefusedNamingTheLine) {
  EXPECT_EQ(error_of("h1:rtx3070:10gbe\nh2\x1b[31m:p4:1gbe\n"),
            "h.txt: line 2: expected a host statement (printable text), got "
            "'h2\\x1b[31m:p4:1gbe' (hint: remove the control bytes)");
  EXPECT_NE(error_of(std::string("h1\0:p4:1gbe", 11)).find("line 1: expected a host statement"),
            std::string::npos);
  EXPECT_EQ(error_of("h1:p4:1gbe\n" + std::string(kHostsFileMaxLineBytes + 1, 'x') + "\n"),
            "h.txt: line 2: expected a host statement of at most 4096 bytes, got a longer line");
  std::string many;
  for (int64_t i = 0; i <= kHostsFileMaxLines; ++i) many += "#\n";
  EXPECT_NE(error_of(many).find("h.txt: expected at most 1000000 lines (one host each), got more"),
            std::string::npos);
}

}  // namespace
}  // namespace hosts_file_test
}  // namespace vitsim::import
