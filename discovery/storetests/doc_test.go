// Tests and benchmarks of the Discoverer over each grant store: in memory, SQLite and
// PostgreSQL (the scale benchmarks, the concurrent SQL tests, a frozen SQLite). They
// live apart from package discovery so that a module importing discovery brings no
// database driver into its go mod tidy, which loads the tests of imported packages.
package storetests_test
