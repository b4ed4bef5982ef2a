// A bench input for the cost of the parent map (docs/tools/performance.md,
// "The parent map"): the two findings whose text or fix-it asks for a
// node's parents, on a TU that includes the real torch headers.
#include <meshguard/meshguard.h>
#include <torch/torch.h>
#include <vector>

// DDP's parameter broadcast after distribute_module: the mesh-aware fix-it
// asks whether the call is a statement (MeshAwareRewrite.cpp).
void broadcast_parameters(const meshguard::DeviceMesh &mesh) {
  torch::nn::Linear model(8, 2);
  meshguard::distribute_module(*model, mesh);
  std::vector<at::Tensor> params = model->parameters();
  mesh.get_group(0)->broadcast(params);
}

// Gradients of a module never distributed, gathered in a loop: the note
// walks from the push_back to the loop over parameters()
// (DiagnosticText.cpp).
void sync_head() {
  torch::nn::Linear head(1, 1);
  std::vector<at::Tensor> grads;
  for (auto &p : head->parameters())
    grads.push_back(p.grad());
  meshguard::dist::all_reduce_(grads);
}

int main() { return 0; }
