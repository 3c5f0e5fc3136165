import Foundation
import QuireStore

exit(QuireMain.run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment))
