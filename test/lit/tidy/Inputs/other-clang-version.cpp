// Stands in for the clang of another release: preloaded, its
// getClangFullVersion() is the one the process finds first, as a
// clang-tidy-21's own would be.
#include <string>
namespace clang {
std::string getClangFullVersion() { return "Debian clang version 21.1.0"; }
} // namespace clang
