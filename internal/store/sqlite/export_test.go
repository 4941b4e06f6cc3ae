package sqlite

// RequestLogDialect is the request log file's dialect, for tests that write a file of
// that schema themselves.
var RequestLogDialect = requestLogDialect
