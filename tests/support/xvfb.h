#pragma once
// Tests that open a window run their program under xvfb-run (an X server of their own).

#include <string>

namespace reel::test {

// The path of xvfb-run followed by `-n N -f FILE`, or "" when it is not installed.
// - N is a display number of this process's own, where `-a` starts looking for a free one: test processes
//   that ctest runs at once then do not race for the same display (xvfb-run -a checks, then starts; two
//   processes starting from 99 both saw it free now and then and one failed).
// - FILE is this process's X authority file (removed when the process exits). Without it xvfb-run makes a
//   temporary folder of its own and, when removing it fails after the command (seen under load on 2-core
//   machines, CI included), exits 5 in place of the command's exit status.
std::string findXvfbRun();

}  // namespace reel::test
