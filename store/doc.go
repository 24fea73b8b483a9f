// Package store keeps safegp's studies in one SQLite file: each study's
// specification and decision set as created, its events (asks, tells,
// retractions and fits) numbered from 1 without gaps, the leases of its
// pending asks and the digests of its imports. Open checks that a file is
// a study database before it writes anything, and brings an older schema
// up to date (a read-only open migrates a temporary copy), so that every
// read sees one schema.
//
// The store knows events as records only: what an event does to a study
// is the study package's (study.Study applies them). It may import
// config (a fit's record) and problem (the range of a recorded value),
// never bandit, study or server.
package store
