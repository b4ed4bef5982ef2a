//===--- ApiModel.cpp - Merging API models --------------------------------===//

#include "meshguard/Analysis/Api/ApiModel.h"

namespace meshguard {
namespace analysis {

template <typename T>
static void appendAll(std::vector<T> &To, const std::vector<T> &From) {
  To.insert(To.end(), From.begin(), From.end());
}

void ApiModel::append(const ApiModel &Other) {
  appendAll(TensorTypes, Other.TensorTypes);
  appendAll(TensorContainers, Other.TensorContainers);
  appendAll(MeshTypes, Other.MeshTypes);
  if (!Other.MeshOfFunction.empty())
    MeshOfFunction = Other.MeshOfFunction;
  appendAll(OpNamespaces, Other.OpNamespaces);
  appendAll(Sources, Other.Sources);
  appendAll(MeshCollectives, Other.MeshCollectives);
  appendAll(ProcessGroupCollectives, Other.ProcessGroupCollectives);
  appendAll(ImplicitCollectives, Other.ImplicitCollectives);
  appendAll(RankSources, Other.RankSources);
  appendAll(RankEnvironment, Other.RankEnvironment);
  appendAll(UniformOps, Other.UniformOps);
  appendAll(PlacementCalls, Other.PlacementCalls);
}

} // namespace analysis
} // namespace meshguard
