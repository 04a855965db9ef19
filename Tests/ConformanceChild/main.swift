import Foundation
import StrataConformance
import StrataLMDB
import StrataSQLite

// The other process of the conformance checks that need one (BackendFeature.otherProcesses):
// one commit to a store a check has open, then exit.
SQLiteBackend.register()
LMDBBackend.register()
exit(await ConformanceChildProcess.main(arguments: Array(CommandLine.arguments.dropFirst())))
