package store

import "database/sql"

// For the external tests, which build files of older schemas and look
// at what a migration wrote.
var Migrations = migrations

func DB(s *Store) *sql.DB    { return s.db }
func Version(s *Store) int   { return s.version }
func Migrate(s *Store) error { return s.migrate() }
