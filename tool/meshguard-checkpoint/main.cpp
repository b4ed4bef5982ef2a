// meshguard-checkpoint: looks into a DCP checkpoint (PyTorch's or
// meshguard's) before a job is launched on it.
//
//   meshguard-checkpoint info DIR     every entry: dtype, global shape, its
//                                     chunks and where their bytes are
//   meshguard-checkpoint verify DIR   bounds, overlap, coverage, every chunk
//                                     read back; exit 1 naming the file and
//                                     entry of the first problem
//   meshguard-checkpoint convert SRC DST --format dcp|safetensors [--force]
//                                     any layout in, the named one out
// Docs: docs/runtime/checkpoint.md.

#include <iostream>
#include <string>

#include <c10/util/Exception.h>

#include <meshguard/runtime/Checkpoint.h>

#include "Convert.h"
#include "Plan.h"

namespace {

std::string shapeText(const std::vector<int64_t> &Shape) {
  std::string Out = "[";
  for (size_t I = 0; I < Shape.size(); ++I)
    Out += (I ? ", " : "") + std::to_string(Shape[I]);
  return Out + "]";
}

void printInfo(const std::string &Dir) {
  const auto Info = meshguard::checkpoint::read_info(Dir);
  for (const auto &[Name, Entry] : Info.tensors) {
    std::cout << Name << "  " << c10::toString(Entry.dtype) << " "
              << shapeText(Entry.shape) << ", " << Entry.chunks.size()
              << " chunk(s)\n";
    for (const auto &Chunk : Entry.chunks)
      std::cout << "    at " << shapeText(Chunk.offsets) << " size "
                << shapeText(Chunk.sizes) << ": " << Chunk.file << " bytes "
                << Chunk.offset << ".." << Chunk.offset + Chunk.length << "\n";
  }
  for (const auto &[Name, Object] : Info.objects)
    std::cout << Name << "  object: " << Object.file << " bytes "
              << Object.offset << ".." << Object.offset + Object.length << "\n";
}

int usage() {
  std::cerr << "usage: meshguard-checkpoint info DIR | verify DIR\n"
               "       meshguard-checkpoint convert SRC DST --format "
               "dcp|safetensors [--force]\n"
               "       meshguard-checkpoint plan DIR --mesh AxB [--placements "
               "P] [--entry NAME=P]... [--shape NAME=AxB]... [--rank N]\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && std::string(argv[1]) == "convert")
    return meshguard::tool::runConvert(argc - 2, argv + 2);
  if (argc >= 2 && std::string(argv[1]) == "plan")
    return meshguard::tool::runPlan(argc - 2, argv + 2);
  if (argc != 3)
    return usage();
  const std::string Command = argv[1];
  const std::string Dir = argv[2];
  try {
    if (Command == "info") {
      printInfo(Dir);
    } else if (Command == "verify") {
      std::cout << meshguard::checkpoint::verify(Dir,
                                                 [](const std::string &Entry) {
                                                   std::cerr << "verified "
                                                             << Entry << "\n";
                                                 })
                << "\n";
    } else {
      return usage();
    }
  } catch (const c10::Error &Error) {
    std::cerr << "meshguard-checkpoint: " << Error.what_without_backtrace()
              << "\n";
    return 1;
  }
  return 0;
}
