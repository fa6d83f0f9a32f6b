package pgstore

// Test helpers shared with the external test package.
var (
	DefaultTestURL  = defaultURL
	TestDatabaseURL = databaseURL
	NewTestSchema   = newSchema
)
