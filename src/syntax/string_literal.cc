#include "syntax/string_literal.h"

#include <cctype>
#include <cstdint>

namespace tsch {

StringToken split_string_token(const std::string& text) {
  StringToken result;
  size_t i = 0;
  while (i < text.size() && text[i] != '"' && text[i] != '\'') {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
    if (c == 'r') result.raw = true;
    if (c == 'b') result.bytes = true;
    if (c == 'f') result.fstring = true;
    ++i;
  }
  size_t quote = 1;
  if (text.size() >= i + 6 && text[i] == text[i + 1] && text[i] == text[i + 2]) quote = 3;
  result.body_offset = i + quote;
  result.body = text.substr(i + quote, text.size() - i - 2 * quote);
  return result;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

static bool read_hex(std::string_view body, size_t at, size_t digits, uint32_t& value) {
  if (at + digits > body.size()) return false;
  value = 0;
  for (size_t k = 0; k < digits; ++k) {
    char c = body[at + k];
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    value = value * 16 +
            static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : std::tolower(c) - 'a' + 10);
  }
  return true;
}

bool decode_escapes(std::string_view body, std::string& out, std::string& error, size_t& error_offset) {
  out.clear();
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out += c;
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n':
        break;  // backslash-newline joins lines
      case '\\':
        out += '\\';
        break;
      case '\'':
        out += '\'';
        break;
      case '"':
        out += '"';
        break;
      case 'a':
        out += '\a';
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'v':
        out += '\v';
        break;
      case 'x':
      case 'u':
      case 'U': {
        size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t value = 0;
        if (!read_hex(body, i + 1, digits, value) || value > 0x10FFFF) {
          error = std::string("invalid \\") + e + " escape";
          error_offset = i - 1;
          return false;
        }
        append_utf8(out, value);
        i += digits;
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t value = 0;
          size_t k = 0;
          while (k < 3 && i + k < body.size() && body[i + k] >= '0' && body[i + k] <= '7') {
            value = value * 8 + static_cast<uint32_t>(body[i + k] - '0');
            ++k;
          }
          append_utf8(out, value);
          i += k - 1;
        } else {
          // Unknown escapes stay as written, as in Python.
          out += '\\';
          out += e;
        }
    }
  }
  return true;
}

}  // namespace tsch
