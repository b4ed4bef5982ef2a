"""Classifies each case from the two sides' results and the plain call.

Outcomes, per case:
  agree            both ran: same values, placements, strides, gradients, collectives
  both-refuse      neither runs it on these placements
  differs          both ran, values right, but some of: placements, stride,
                   grad-placements, comm-fwd, comm-bwd differ (listed)
  meshguard-refuses   PyTorch runs it, meshguard refuses
  meshguard-extends   PyTorch refuses, meshguard runs it with the right values
  meshguard-fails  the op ran in meshguard but reading its output or its
                   backward failed: a bug
  pytorch-fails    the same in PyTorch (meshguard's values checked against
                   the plain call)
  pytorch-diverges PyTorch's ranks disagree (one raises, the others wait
                   in a collective until it times out, or Gloo aborts the
                   process): PyTorch hangs or crashes there
  meshguard-diverges  the same in meshguard: a bug
  pytorch-wrong    PyTorch's values, gradients or shapes differ from the plain
                   call's and meshguard's agree with it: PyTorch is wrong
  WRONG            meshguard's values (or gradients) differ from PyTorch's or
                   from the plain call: always a bug
"""

import torch


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if a.shape != b.shape:
        return False
    if a.dtype != b.dtype and not (a.is_floating_point() and b.is_floating_point()):
        return False
    if a.is_floating_point() or b.is_floating_point():
        return torch.allclose(a.double(), b.double(), rtol=1e-4, atol=1e-5, equal_nan=True)
    return torch.equal(a, b)


def _values(outputs):
    return [o["value"] for o in outputs]


def classify(case, ours, theirs, plain, plain_grads=None):
    """-> (outcome, [differing fields], detail text)."""
    if theirs.get("status") in ("diverged", "crashed") and ours.get("status") not in ("diverged", "crashed"):
        if ours.get("status") == "ok" and case["values"] and plain is not None and not all(
                close(g, r) for g, r in zip(_values(ours.get("outputs", [])), plain)):
            return "WRONG", ["values"], "output differs from the plain call"
        return "pytorch-diverges", [], theirs.get("error", "")
    if ours.get("status") in ("diverged", "crashed"):
        return "meshguard-diverges", [], ours.get("error", "")
    if ours.get("status") == "error":
        return "meshguard-fails", [], ours.get("error", "")
    m_ok = ours.get("status") == "ok"
    p_ok = theirs.get("status") == "ok"
    if theirs.get("status") == "error":
        if case["values"] and plain is not None and not all(
                close(g, r) for g, r in zip(_values(ours.get("outputs", [])), plain)):
            return "WRONG", ["values"], "output differs from the plain call"
        return "pytorch-fails", [], theirs.get("error", "")
    if not m_ok and not p_ok:
        return "both-refuse", [], ""
    if not m_ok:
        return "meshguard-refuses", [], ours.get("error", "")
    if case["values"] and plain is not None:
        got = _values(ours["outputs"])
        if len(got) != len(plain) or not all(close(g, r) for g, r in zip(got, plain)):
            return "WRONG", ["values"], "output differs from the plain call"
    if not p_ok:
        return "meshguard-extends", [], theirs.get("error", "")
    fields = []
    if case["values"] and not all(close(a, b) for a, b in zip(_values(ours["outputs"]), _values(theirs["outputs"]))):
        if plain is None:
            return "WRONG", ["values"], "output differs from PyTorch's"
        # meshguard's is the plain call's value (checked above): PyTorch's is not
        return "pytorch-wrong", ["values"], "PyTorch's output differs from the plain call"
    if [o["placements"] for o in ours["outputs"]] != [o["placements"] for o in theirs["outputs"]]:
        fields.append("placements")
    if [o["shape"] for o in ours["outputs"]] != [o["shape"] for o in theirs["outputs"]]:
        if case["values"] and plain is not None and [list(o["shape"]) for o in ours["outputs"]] == [
                list(r.shape) for r in plain]:
            # meshguard's is the plain call's shape (an out= tensor ATen resized): PyTorch's is not
            return "pytorch-wrong", ["shape"], "PyTorch's output shape differs from the plain call's"
        return "WRONG", ["shape"], "output shape differs from PyTorch's"
    if [o["stride"] for o in ours["outputs"]] != [o["stride"] for o in theirs["outputs"]]:
        fields.append("stride")
    if dict(ours.get("comm_fwd", {})) != dict(theirs.get("comm_fwd", {})):
        fields.append("comm-fwd")
    og, tg = ours.get("grads"), theirs.get("grads")
    if (og is None) != (tg is None):
        fields.append("backward")
    elif og is not None:
        for k, a in enumerate(og):
            ref = plain_grads[k] if plain_grads is not None and k < len(plain_grads) else None
            if a is not None and ref is not None and not close(a["value"], ref):
                return "WRONG", ["grad-values"], "gradient of input %d differs from the plain call's" % k
        for a, b in zip(og, tg):
            if (a is None) != (b is None):
                fields.append("grad-missing")
            elif a is not None:
                if not close(a["value"], b["value"]):
                    if plain_grads is None:
                        return "WRONG", ["grad-values"], "gradient differs from PyTorch's"
                    # meshguard's is the plain call's (checked above): PyTorch's is not
                    return "pytorch-wrong", ["grad-values"], "PyTorch's gradient differs from the plain call's"
                if a["placements"] != b["placements"]:
                    fields.append("grad-placements")
        if dict(ours.get("comm_bwd", {})) != dict(theirs.get("comm_bwd", {})):
            fields.append("comm-bwd")
    fields = sorted(set(fields))
    return ("differs" if fields else "agree"), fields, ""


def describe_difference(ours, theirs, field):
    """One line: what each side did for a differing field."""
    if field == "placements":
        return "meshguard %s, PyTorch %s" % (_pl(ours["outputs"]), _pl(theirs["outputs"]))
    if field == "stride":
        return "meshguard %s, PyTorch %s" % ([o["stride"] for o in ours["outputs"]],
                                            [o["stride"] for o in theirs["outputs"]])
    if field in ("comm-fwd", "comm-bwd"):
        key = field.replace("-", "_")
        return "meshguard %s, PyTorch %s" % (_comm(ours.get(key)), _comm(theirs.get(key)))
    if field == "grad-placements":
        return "meshguard %s, PyTorch %s" % (_gpl(ours["grads"]), _gpl(theirs["grads"]))
    return field


def _pl(outputs):
    return " ".join("[" + ",".join(o["placements"] or ["plain"]) + "]" for o in outputs)


def _gpl(grads):
    return " ".join("-" if g is None else "[" + ",".join(g["placements"] or ["plain"]) + "]" for g in grads)


def _comm(c):
    c = dict(c or {})
    return "+".join("%d %s" % (n, k) for k, n in sorted(c.items())) or "none"
