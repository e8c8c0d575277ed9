#include "ternd/hash_password.h"

#include <termios.h>
#include <unistd.h>

#include <csignal>
#include <exception>
#include <iostream>
#include <optional>
#include <string>

#include "auth/crypto.h"
#include "auth/scram.h"
#include "auth/scram_algorithm.h"
#include "config/credential_toml.h"

namespace tern::ternd {

namespace {

// The terminal's settings while echo is off, for the signal handler to put back.
termios saved_terminal;

// Ctrl-C at the prompt must not leave the shell without echo.
extern "C" void restore_terminal_and_die(int signal) {
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_terminal);  // async-signal-safe
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// Turns the terminal's echo off for its lifetime, so the password is not shown as typed.
class EchoOff {
 public:
  EchoOff() {
    if (::tcgetattr(STDIN_FILENO, &saved_terminal) != 0) return;
    termios quiet = saved_terminal;
    quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
    previous_int_ = std::signal(SIGINT, restore_terminal_and_die);
    previous_term_ = std::signal(SIGTERM, restore_terminal_and_die);
    active_ = ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0;
  }
  ~EchoOff() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved_terminal);
    if (previous_int_ != SIG_ERR) std::signal(SIGINT, previous_int_);
    if (previous_term_ != SIG_ERR) std::signal(SIGTERM, previous_term_);
  }
  EchoOff(const EchoOff&) = delete;
  EchoOff& operator=(const EchoOff&) = delete;

 private:
  bool active_ = false;
  void (*previous_int_)(int) = SIG_ERR;
  void (*previous_term_)(int) = SIG_ERR;
};

// One line without its end; nullopt at the end of input before any character.
std::optional<std::string> read_line(std::istream& in) {
  std::string line;
  if (!std::getline(in, line) && line.empty()) return std::nullopt;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::optional<std::string> prompt_hidden(std::istream& in, std::ostream& err, const char* prompt) {
  err << prompt << std::flush;
  std::optional<std::string> line;
  {
    EchoOff echo_off;
    line = read_line(in);
  }
  err << "\n";  // the Enter the user typed was not echoed either
  return line;
}

// The password, or nullopt after saying on `err` why there is none.
std::optional<std::string> read_password(std::istream& in, std::ostream& err) {
  const bool interactive = &in == &std::cin && ::isatty(STDIN_FILENO) == 1;
  std::optional<std::string> password =
      interactive ? prompt_hidden(in, err, "Password: ") : read_line(in);
  if (!password) {
    err << "ternd --hash-password: no password on standard input\n";
    return std::nullopt;
  }
  if (password->empty()) {
    err << "ternd --hash-password: the password must not be empty\n";
    return std::nullopt;
  }
  if (interactive) {
    std::optional<std::string> again = prompt_hidden(in, err, "Again: ");
    const bool same = again && auth::equal_in_constant_time(*again, *password);
    if (again) auth::cleanse(*again);
    if (!same) {
      auth::cleanse(*password);
      err << "ternd --hash-password: the passwords differ\n";
      return std::nullopt;
    }
  }
  return password;
}

}  // namespace

int run_hash_password(std::istream& in, std::ostream& out, std::ostream& err) {
  std::optional<std::string> password = read_password(in, err);
  if (!password) return 1;
  try {
    for (const auth::ScramAlgorithm algorithm : auth::kScramAlgorithmsStrongestFirst) {
      const auth::ScramCredential derived = auth::derive_credential(
          algorithm, *password, auth::random_salt(algorithm), auth::kDefaultIterations);
      const config::CredentialSpec credential{std::string(auth::mechanism_name(algorithm)),
                                              derived.salt, derived.stored_key, derived.server_key,
                                              derived.iterations};
      out << config::credential_toml_line(credential) << "\n";
    }
  } catch (const std::exception& error) {
    auth::cleanse(*password);
    err << "ternd --hash-password: " << error.what() << "\n";
    return 1;
  }
  auth::cleanse(*password);
  out << std::flush;
  return out ? 0 : 1;
}

}  // namespace tern::ternd
