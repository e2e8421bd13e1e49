"""Runs an ONNX model written by `descent export` (cargo feature `onnx`) with onnxruntime on
the reference inputs stored beside it and compares the values with burn's.

    python3 scripts/check_onnx.py awale.descent [--tolerance 1e-4]

reads awale.descent.onnx and awale.descent.onnx-check.json; exits 1 if any value differs by
more than the tolerance. Also runs the model on a batch of another size (the batch axis is
dynamic). Needs `pip install onnxruntime numpy` (scripts/check_onnx.sh sets up a venv).
"""
import argparse
import json
import sys

import numpy as np
import onnxruntime as ort


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", help="the .descent file; its .onnx and .onnx-check.json sit beside it")
    parser.add_argument("--tolerance", type=float, default=1e-4)
    args = parser.parse_args()
    check = json.load(open(args.export + ".onnx-check.json"))
    shape = check["input_shape"]
    inputs = np.asarray(check["inputs"], dtype=np.float32).reshape(shape)
    expected = np.asarray(check["outputs"], dtype=np.float32)
    session = ort.InferenceSession(args.export + ".onnx", providers=["CPUExecutionProvider"])
    [input_meta] = session.get_inputs()
    [output_meta] = session.get_outputs()
    print(f"input {input_meta.name} {input_meta.shape}, output {output_meta.name} {output_meta.shape}")
    got = session.run(None, {input_meta.name: inputs})[0].reshape(-1)
    difference = float(np.max(np.abs(got - expected)))
    print(f"{len(expected)} positions: max |onnxruntime - burn| = {difference:.3g}")
    # The batch axis is dynamic: the first three positions alone give the same values.
    part = session.run(None, {input_meta.name: inputs[:3]})[0].reshape(-1)
    part_difference = float(np.max(np.abs(part - expected[:3])))
    print(f"batch of 3: max difference {part_difference:.3g}")
    if max(difference, part_difference) > args.tolerance:
        print(f"FAILED: above the tolerance {args.tolerance}")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
