#pragma once
// Tests that open a window run their program under xvfb-run (an X server of their own).

#include <string>
#include <string_view>

namespace reel::test {

// The path of xvfb-run followed by `-n N`, or "" when it is not installed. N is a display number of this
// process's own, where `-a` starts looking for a free one: test processes that ctest runs at once then do
// not race for the same display (xvfb-run -a checks, then starts; two processes starting from 99 both saw
// it free now and then and one failed).
std::string findXvfbRun();

// Whether xvfb-run itself failed after the command it ran: it exits 5 when it cannot remove its temporary
// folder (seen once under load on the 2-core VM), and the command's own exit status is lost then, so the
// caller runs the command again.
bool xvfbRunFailedAfterTheCommand(int exitCode, std::string_view output);

}  // namespace reel::test
