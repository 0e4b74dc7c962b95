// Saves the model ONNX Runtime optimizes, as its `optimized_model_filepath` does, for
// bench/difftest/ort_saved.py (which runs the saved models in Kiln).
//
//   node bench/difftest/ort_save.js MODEL.onnx OUT.onnx LEVEL
//
// LEVEL: basic or extended. ("all" adds the NCHWc layout of ONNX Runtime's own CPU kernels, which
// ONNX Runtime itself warns is only for the machine that wrote it.)
'use strict';
const ort = require('../ort/node_modules/onnxruntime-node');

(async () => {
  const [src, dst, level] = process.argv.slice(2);
  const session = await ort.InferenceSession.create(src, {
    graphOptimizationLevel: level,
    optimizedModelFilePath: dst,
    intraOpNumThreads: 1,
  });
  await session.release();
})().catch((e) => {
  console.error(String(e && e.message ? e.message : e));
  process.exit(1);
});
