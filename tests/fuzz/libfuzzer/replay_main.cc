// A main() for the libFuzzer targets in builds without libFuzzer (the plain Release build and
// its ctest): runs each file named on the command line as one input, or, given
// `--random N`, N random inputs drawn from TSCH_FUZZ_SEED (a new seed each run when unset;
// printed either way, so a failure reproduces). An input that fails aborts, as under libFuzzer.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// Bytes that reach the interesting paths more often than uniform noise: printable text,
// separators, quotes, line breaks and the C and .npy syntax characters.
std::string random_input(std::mt19937_64& rng) {
  static const std::string favoured = "\n\r\t \"'#%\\;{}()[]<>,:0123456789abcfiuTF_.-$";
  std::uniform_int_distribution<int> length(0, 96), byte(0, 255), pick(0, 3);
  std::string s;
  int n = length(rng);
  for (int i = 0; i < n; ++i) {
    int how = pick(rng);
    if (how == 0)
      s += static_cast<char>(byte(rng));
    else if (how == 1)
      s += '\0';
    else
      s += favoured[static_cast<size_t>(byte(rng)) % favoured.size()];
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  if (argc == 3 && std::strcmp(argv[1], "--random") == 0) {
    long count = std::strtol(argv[2], nullptr, 10);
    const char* env = std::getenv("TSCH_FUZZ_SEED");
    uint64_t seed = env && *env ? std::strtoull(env, nullptr, 10)
                                : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::printf("%s: %ld random inputs, TSCH_FUZZ_SEED=%llu\n", argv[0], count, static_cast<unsigned long long>(seed));
    std::fflush(stdout);
    std::mt19937_64 rng(seed);
    for (long i = 0; i < count; ++i) {
      std::string input = random_input(rng);
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    }
    std::printf("%ld inputs, 0 findings\n", count);
    return 0;
  }
  int runs = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
      return 2;
    }
    std::string input((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    ++runs;
  }
  std::printf("%d inputs, 0 findings\n", runs);
  return 0;
}
