// Package moments is Welford's one-pass mean and standard error, shared
// by the packages that summarize runs into tables (safety, sweep).
package moments
