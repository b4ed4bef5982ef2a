//===- Convert.cpp - meshguard-checkpoint convert -------------------------===//
//
// Converts a checkpoint in one process, entry by entry: each tensor is put
// together whole from its chunks (only one entry's data is held at a time),
// written to DST's new files, and dropped. DST is written into a staging
// directory beside it and swapped into place at the end, so a conversion
// that dies leaves DST as it was. DCP out: one __0_0.distcp and .metadata,
// for dcp.load. Safetensors out: consolidated, model-00001-of-00001
// .safetensors with model.safetensors.index.json, for
// HuggingFaceStorageReader (and Hugging Face's own loaders).
//
//===----------------------------------------------------------------------===//

#include "Convert.h"

#include <filesystem>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

#include <c10/util/Exception.h>
#include <c10/util/accumulate.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <meshguard/runtime/Checkpoint.h>

#include "checkpoint/DcpMetadata.h"
#include "checkpoint/Files.h"
#include "checkpoint/Json.h"
#include "checkpoint/Safetensors.h"

namespace ckpt = meshguard::checkpoint;
namespace fs = std::filesystem;

namespace meshguard {
namespace tool {

namespace {

constexpr const char *ConsolidatedFile = "model-00001-of-00001.safetensors";
constexpr const char *DcpFile = "__0_0.distcp";

int convertUsage() {
  std::cerr << "usage: meshguard-checkpoint convert SRC DST --format "
               "dcp|safetensors [--force]\n";
  return 2;
}

bool overlaps(const ckpt::Chunk &A, const ckpt::Chunk &B) {
  for (size_t D = 0; D < A.offsets.size(); ++D)
    if (A.offsets[D] + A.sizes[D] <= B.offsets[D] ||
        B.offsets[D] + B.sizes[D] <= A.offsets[D])
      return false;
  return true;
}

// The whole tensor of entry `Name`, from chunks that must tile it: an
// element no chunk holds would be written as garbage.
at::Tensor assemble(const std::string &Dir, const std::string &Name,
                    const ckpt::TensorEntry &Entry) {
  at::Tensor Whole =
      at::empty(Entry.shape, at::TensorOptions().dtype(Entry.dtype));
  int64_t Covered = 0;
  std::vector<const ckpt::Chunk *> Seen;
  for (const ckpt::Chunk &C : Entry.chunks) {
    if (c10::multiply_integers(C.sizes) == 0)
      continue;
    for (const ckpt::Chunk *Other : Seen)
      TORCH_CHECK(!overlaps(C, *Other), Dir, ": entry '", Name,
                  "' has overlapping chunks at offsets ",
                  c10::IntArrayRef(C.offsets), " and ",
                  c10::IntArrayRef(Other->offsets));
    Seen.push_back(&C);
    Covered += c10::multiply_integers(C.sizes);
    at::Tensor Dst = Whole;
    for (size_t D = 0; D < C.sizes.size(); ++D)
      Dst = Dst.narrow(static_cast<int64_t>(D), C.offsets[D], C.sizes[D]);
    Dst.copy_(ckpt::read_chunk(Dir, Name, Entry.dtype, C));
  }
  TORCH_CHECK(Covered == Whole.numel(), Dir, ": the chunks of entry '", Name,
              "' cover ", Covered, " of its ", Whole.numel(), " elements");
  return Whole;
}

void progress(size_t Done, size_t Total, const std::string &Name,
              uint64_t Bytes) {
  std::cerr << "convert: [" << Done << "/" << Total << "] " << Name << " ("
            << Bytes << " bytes)\n";
}

void writeSafetensors(const std::string &Src, const ckpt::CheckpointInfo &Info,
                      const std::string &Out) {
  TORCH_CHECK(
      Info.objects.empty(), Src, ": non-tensor entry '",
      Info.objects.empty() ? "" : Info.objects.begin()->first,
      "' is not representable in safetensors (convert to dcp keeps it)");
  std::vector<ckpt::SafetensorsTensor> Tensors;
  for (const auto &[Name, Entry] : Info.tensors) {
    ckpt::SafetensorsTensor T;
    T.name = Name;
    T.dtype = Entry.dtype;
    T.shape = Entry.shape;
    Tensors.push_back(T);
  }
  const std::string Header =
      ckpt::safetensors_header_bytes(Tensors, {{"format", "pt"}});
  ckpt::FileWriter File(ckpt::join(Out, ConsolidatedFile));
  File.write(Header.data(), Header.size());
  std::string WeightMap;
  size_t Done = 0;
  for (const ckpt::SafetensorsTensor &T : Tensors) {
    const at::Tensor Whole = assemble(Src, T.name, Info.tensors.at(T.name));
    TORCH_CHECK(File.size() == T.begin, "convert: ", T.name,
                " would not land where the header says (a bug)");
    File.write(static_cast<const char *>(Whole.data_ptr()), Whole.nbytes());
    WeightMap += (WeightMap.empty() ? "\n    " : ",\n    ") +
                 ckpt::json_quote(T.name) + ": " +
                 ckpt::json_quote(ConsolidatedFile);
    progress(++Done, Tensors.size(), T.name, Whole.nbytes());
  }
  const uint64_t Total = File.size() - Header.size();
  File.sync_and_close();
  ckpt::publish_file(
      Out, ckpt::kSafetensorsIndex,
      "{\n  \"metadata\": {\"total_size\": " + std::to_string(Total) +
          "},\n  \"weight_map\": {" + WeightMap + "\n  }\n}\n");
}

void writeDcp(const std::string &Src, const ckpt::CheckpointInfo &Info,
              const std::string &Out) {
  for (const auto &[Name, Entry] : Info.tensors)
    TORCH_CHECK(ckpt::dtype_name(Entry.dtype).has_value(), Src, ": entry '",
                Name, "' has dtype ", Entry.dtype,
                ", which DCP checkpoints of meshguard do not hold");
  ckpt::CheckpointInfo Result;
  ckpt::FileWriter File(ckpt::join(Out, DcpFile));
  const size_t Total = Info.tensors.size() + Info.objects.size();
  size_t Done = 0;
  for (const auto &[Name, Entry] : Info.tensors) {
    const std::vector<char> Archive =
        torch::jit::pickle_save(assemble(Src, Name, Entry));
    ckpt::Chunk C;
    C.offsets.assign(Entry.shape.size(), 0);
    C.sizes = Entry.shape;
    C.file = DcpFile;
    C.offset = File.write(Archive.data(), Archive.size());
    C.length = Archive.size();
    ckpt::TensorEntry &E = Result.tensors[Name];
    E.dtype = Entry.dtype;
    E.shape = Entry.shape;
    E.chunks.push_back(C);
    progress(++Done, Total, Name, C.length);
  }
  // A DCP source's objects, byte for byte (they are pickles either way).
  for (const auto &[Name, Object] : Info.objects) {
    const std::vector<char> Bytes = ckpt::read_range(
        ckpt::join(Src, Object.file), Object.offset, Object.length, Name);
    ckpt::ObjectEntry O;
    O.file = DcpFile;
    O.offset = File.write(Bytes.data(), Bytes.size());
    O.length = Bytes.size();
    Result.objects[Name] = O;
    progress(++Done, Total, Name, O.length);
  }
  File.sync_and_close();
  ckpt::publish_file(Out, ".metadata", ckpt::encode_metadata(Result));
}

fs::path plainPath(const std::string &Dir) {
  fs::path P = fs::path(Dir).lexically_normal();
  return P.has_filename() ? P : P.parent_path();
}

} // namespace

int runConvert(int Argc, char **Argv) {
  std::vector<std::string> Positional;
  std::string Format;
  bool Force = false;
  for (int I = 0; I < Argc; ++I) {
    const std::string Arg = Argv[I];
    if (Arg == "--format" && I + 1 < Argc)
      Format = Argv[++I];
    else if (Arg == "--force")
      Force = true;
    else if (Arg.rfind("--", 0) == 0)
      return convertUsage();
    else
      Positional.push_back(Arg);
  }
  if (Positional.size() != 2 || (Format != "dcp" && Format != "safetensors"))
    return convertUsage();
  const std::string Src = Positional[0];
  const fs::path Dst = plainPath(Positional[1]);
  const std::string Staging =
      Dst.string() + ".converting-" + std::to_string(::getpid());
  std::error_code Ec;
  try {
    TORCH_CHECK(!fs::exists(Dst, Ec) || !fs::equivalent(Src, Dst, Ec),
                "convert: SRC and DST are one directory");
    TORCH_CHECK(Force || !fs::exists(Dst, Ec) || fs::is_empty(Dst, Ec),
                Dst.string(),
                " is not empty: --force replaces it (whole, in one step)");
    const ckpt::CheckpointInfo Info = ckpt::read_info(Src);
    fs::remove_all(Staging, Ec);
    fs::create_directories(Staging, Ec);
    TORCH_CHECK(!Ec, Staging, ": cannot be created: ", Ec.message());
    if (Format == "safetensors")
      writeSafetensors(Src, Info, Staging);
    else
      writeDcp(Src, Info, Staging);
    ckpt::publish_directory(Staging, Dst.string());
    std::cout << Src << " -> " << Dst.string() << ": " << Info.tensors.size()
              << " tensors, " << Info.objects.size() << " objects, " << Format
              << "\n";
  } catch (const c10::Error &Error) {
    fs::remove_all(Staging, Ec);
    std::cerr << "meshguard-checkpoint: " << Error.what_without_backtrace()
              << "\n";
    return 1;
  } catch (const std::exception &Error) {
    fs::remove_all(Staging, Ec);
    std::cerr << "meshguard-checkpoint: " << Error.what() << "\n";
    return 1;
  }
  return 0;
}

} // namespace tool
} // namespace meshguard
