#include "support/source.h"

#include <mutex>

namespace tsch {

const SourceFile* SourceFile::make(std::string name, std::string text, int first_line, const SourceFile* origin) {
  // Sources are never freed: closures, tracebacks and REPL history refer to them.
  static std::mutex mu;
  static std::vector<std::unique_ptr<SourceFile>> all;
  std::lock_guard<std::mutex> lock(mu);
  all.emplace_back(new SourceFile(std::move(name), std::move(text), first_line, origin));
  return all.back().get();
}

SourceFile::SourceFile(std::string name, std::string text, int first_line, const SourceFile* origin)
    : origin_(origin), name_(std::move(name)), text_(std::move(text)), first_line_(first_line) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::line_text(int line) const {
  if (origin_ != nullptr) return origin_->line_text(line);
  int index = line - first_line_;
  if (index < 0 || index >= static_cast<int>(line_starts_.size())) return {};
  size_t begin = line_starts_[index];
  size_t end = text_.find('\n', begin);
  if (end == std::string::npos) end = text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

}  // namespace tsch
