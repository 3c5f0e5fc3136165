import Foundation
import QuireKit

/// `quire device`: this machine's id and name, and the names of the others.
struct DeviceCommand: Command {
    static let name = "device"
    static let abstract = "Name this machine, so conflicts and restores say \"laptop\", not a UUID."
    static let usage = """
        Usage: quire device [--json]            this machine and every named one
               quire device name NAME           name this machine (syncs to the others)
               quire device name ""             forget its name

        Names sync like any change: after the next sync every machine of the journal shows
        this one's name in `quire conflicts` and where a restore or status names a device.
        """
    static let options: [OptionSpec] = [OptionSpec.flag("json", "{\"device\", \"name\", \"devices\": [{\"device\", \"name\"}]}").only("")]

    static func run(_ arguments: Arguments, context: Context) throws {
        switch arguments.positionals.first ?? "" {
        case "":
            _ = try arguments.positionals()
            let store = try context.openStore(reading: true)
            let names = try store.deviceNames()
            if arguments.flag("json") {
                var json = JSONOutput()
                json.object([("device", .string(store.deviceID)), ("name", .string(names[store.deviceID] ?? "")),
                             ("devices", .objects(names.sorted { $0.key < $1.key }.map { [("device", .string($0.key)), ("name", .string($0.value))] }))])
                context.print(json.text)
                return
            }
            context.print("this machine: \(store.deviceID)" + (names[store.deviceID].map { " (\($0))" } ?? " (no name: quire device name NAME)"))
            for (id, name) in names.sorted(by: { $0.value < $1.value }) where id != store.deviceID {
                context.print("              \(id) (\(name))")
            }
        case "name":
            let name = try arguments.positionals("name", "NAME")[1]
            let store = try context.openStore(create: true)
            try store.setDeviceName(name)
            let cleared = name.allSatisfy(\.isWhitespace)
            context.printError(cleared ? "This machine has no name now; it is shown by its id."
                               : "This machine is \(name.trimmingCharacters(in: .whitespaces)) now; your other machines learn it at the next sync.")
        default:
            throw CLIError.usage("unknown device command '\(arguments.positionals[0])' (name)")
        }
    }
}
