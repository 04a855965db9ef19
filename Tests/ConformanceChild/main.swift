import Foundation
import StrataConformance
import StrataLMDB
import StrataPostgres
import StrataSQLite

// The other process of the conformance checks that need one (BackendFeature.otherProcesses):
// one commit to a store a check has open, then exit.
SQLiteBackend.register()
LMDBBackend.register()
PostgresBackend.register()
exit(await ConformanceChildProcess.main(arguments: Array(CommandLine.arguments.dropFirst())))
