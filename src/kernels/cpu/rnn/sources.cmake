# The rnn kernel family: library sources and unit tests (paths from the repository root).
list(APPEND KILN_SOURCES
  src/kernels/cpu/rnn/dynamic_quantize_lstm.cc
  src/kernels/cpu/rnn/gru.cc
  src/kernels/cpu/rnn/kernels.cc
  src/kernels/cpu/rnn/lstm.cc
  src/kernels/cpu/rnn/rnn_common.cc
  src/kernels/cpu/rnn/simple_rnn.cc)
list(APPEND KILN_UNIT_TEST_SOURCES
  src/kernels/cpu/rnn/dynamic_quantize_lstm_test.cc
  src/kernels/cpu/rnn/gru_test.cc
  src/kernels/cpu/rnn/lstm_test.cc
  src/kernels/cpu/rnn/rnn_packed_test.cc
  src/kernels/cpu/rnn/simple_rnn_test.cc)
