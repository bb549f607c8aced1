// Decoding of string-literal tokens: prefixes, quotes and backslash escapes.
#pragma once

#include <string>
#include <string_view>

namespace tsch {

struct StringToken {
  bool raw = false;
  bool bytes = false;
  bool fstring = false;
  size_t body_offset = 0;  // bytes from the token start to the first character of the body
  std::string body;        // the text between the quotes, escapes not yet decoded
};

// Splits a STRING token's text (prefix, quotes, body).
StringToken split_string_token(const std::string& text);

// Decodes backslash escapes in `body`. On a malformed escape returns false and sets
// `error` and `error_offset` (a byte offset into body).
bool decode_escapes(std::string_view body, std::string& out, std::string& error, size_t& error_offset);

// Appends the UTF-8 encoding of `code_point`.
void append_utf8(std::string& out, uint32_t code_point);

}  // namespace tsch
