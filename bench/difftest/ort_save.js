// Saves the model ONNX Runtime optimizes, as its `optimized_model_filepath` does, for
// bench/difftest/ort_saved.py (which runs the saved models in Kiln).
//
//   node bench/difftest/ort_save.js MODEL.onnx OUT.onnx LEVEL
//   node bench/difftest/ort_save.js --list LIST.json LEVEL
//
// LEVEL: basic, extended or all ("all" adds the NHWC forms of 8-bit ops and, for float
// convolutions, the NCHWc layout of ONNX Runtime's own CPU kernels, which ONNX Runtime itself
// warns is only for the machine that wrote it). With --list, LIST.json is an array of difftest
// case folders: each folder's model.onnx is saved as model_saved.onnx (nothing is written for a
// model ONNX Runtime refuses).
'use strict';
const ort = require('../ort/node_modules/onnxruntime-node');

async function save(src, dst, level) {
  const session = await ort.InferenceSession.create(src, {
    graphOptimizationLevel: level,
    optimizedModelFilePath: dst,
    intraOpNumThreads: 1,
  });
  await session.release();
}

(async () => {
  const args = process.argv.slice(2);
  if (args[0] !== '--list') {
    await save(args[0], args[1], args[2]);
    return;
  }
  const fs = require('fs');
  const path = require('path');
  for (const dir of JSON.parse(fs.readFileSync(args[1], 'utf8'))) {
    try {
      await save(path.join(dir, 'model.onnx'), path.join(dir, 'model_saved.onnx'), args[2]);
    } catch (e) {
      // refused: the case runs as written, and ONNX Runtime's run of it refuses it too
    }
  }
})().catch((e) => {
  console.error(String(e && e.message ? e.message : e));
  process.exit(1);
});
