package sqlstore

// SampleAnswer is sampleAnswer for the external test package's benchmarks.
var SampleAnswer = sampleAnswer
