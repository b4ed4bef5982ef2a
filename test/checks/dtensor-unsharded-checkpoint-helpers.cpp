// RUN: %check_meshguard %s dtensor-unsharded-checkpoint %t -- -- -I%stubs

// A helper of this file that saves its parameter with torch::save (or loads
// into it), called with a DTensor: the warning at the call, a note at the
// save inside it (the "ckpt" summary fact; across files:
// test/tools/whole-program-checkpoint.test). Each has a negative twin.

#include <meshguard/meshguard.h>

using meshguard::DeviceMesh;
using meshguard::Shard;

void save_weights(const at::Tensor &w, const std::string &path) {
  torch::save(w, path);
}

void restore(at::Tensor &w) { torch::load(w, "w.pt"); }

// Two levels: the note is at the save.
void save_step(const at::Tensor &t) { save_weights(t, "step.pt"); }

// Negative twin: it gathers first (a plain tensor whatever it is given).
void save_full(const at::Tensor &t) {
  torch::save(meshguard::full_tensor(t), "full.pt");
}

void train(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  save_weights(w, "w.pt");
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'save_weights' saves the DTensor 'w' with libtorch's serialization inside it: the runtime throws 'Cannot access storage of meshguard::DTensorImpl'; save DTensors with meshguard::checkpoint::save [dtensor-unsharded-checkpoint]
  // CHECK-NOTES: :14:3: note: the save is here; its tensor comes from that parameter
  // CHECK-NOTES: :[[@LINE-4]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  save_step(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'save_step' saves the DTensor 'w'
  // CHECK-NOTES: :14:3: note: the save is here; its tensor comes from that parameter
  // CHECK-NOTES: :[[@LINE-8]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
  save_full(w);
  restore(w);
  // CHECK-NOTES: :[[@LINE-1]]:3: warning: call to 'restore' loads into the DTensor 'w' with libtorch's serialization inside it: the runtime throws 'aten.set_.source_Tensor got mixed torch.Tensor and DTensor'; load DTensors with meshguard::checkpoint::load [dtensor-unsharded-checkpoint]
  // CHECK-NOTES: :17:31: note: the load is here; its tensor comes from that parameter
  // CHECK-NOTES: :[[@LINE-13]]:18: note: 'w' is a DTensor: it comes from distribute_tensor() here
}

// Negative twins: the same helpers given plain tensors.
void trainPlain(const DeviceMesh &mesh) {
  at::Tensor w = meshguard::distribute_tensor(torch::randn({8, 4}), mesh, {Shard{0}});
  save_weights(meshguard::full_tensor(w), "w.pt");
  at::Tensor p = torch::ones({2});
  save_weights(p, "p.pt");
  save_step(p);
  restore(p);
}
