// Runs many small models with ONNX Runtime for Node.js and writes their outputs, for
// bench/difftest/difftest.py (which runs the same models with Kiln and compares).
//
//   node bench/difftest/ort_run.js LIST.json [LEVEL]
//
// LIST.json is an array of case folders. Each folder holds model.onnx and inputs.json: an array
// of {name, file, dtype, dims} where file is raw little-endian data in C order. For each case this
// writes ort.json into the folder: {"ok": true, "outputs": [{name, file, dtype, dims}]} with the
// output data beside it (ort_<i>.bin), or {"ok": false, "error": MESSAGE}. One session per case,
// one thread, graph optimization LEVEL: disabled (the default: each node runs as written, so
// the reference has no fusions of its own), basic, extended or all.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('../ort/node_modules/onnxruntime-node');

const ARRAYS = {
  float32: Float32Array,
  float64: Float64Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
  float16: Uint16Array,
};

function readTensor(dir, spec) {
  const buf = fs.readFileSync(path.join(dir, spec.file));
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  const Arr = ARRAYS[spec.dtype];
  if (!Arr) throw new Error(`input ${spec.name}: dtype ${spec.dtype} not supported here`);
  return new ort.Tensor(spec.dtype, new Arr(copy.buffer), spec.dims);
}

const LEVEL = process.argv[3] || 'disabled';

async function runCase(dir) {
  const specs = JSON.parse(fs.readFileSync(path.join(dir, 'inputs.json'), 'utf8'));
  const feeds = {};
  for (const spec of specs) feeds[spec.name] = readTensor(dir, spec);
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: LEVEL,
  });
  try {
    const results = await session.run(feeds);
    const outputs = [];
    session.outputNames.forEach((name, i) => {
      const t = results[name];
      if (!(t.type in ARRAYS)) throw new Error(`output ${name}: dtype ${t.type} not supported here`);
      const file = `ort_${i}.bin`;
      fs.writeFileSync(path.join(dir, file),
                       Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      outputs.push({name, file, dtype: t.type, dims: t.dims.map(Number)});
    });
    return {ok: true, outputs};
  } finally {
    await session.release();
  }
}

async function main() {
  const list = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  for (const dir of list) {
    let result;
    try {
      result = await runCase(dir);
    } catch (e) {
      result = {ok: false, error: String(e && e.message ? e.message : e)};
    }
    fs.writeFileSync(path.join(dir, 'ort.json'), JSON.stringify(result));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
