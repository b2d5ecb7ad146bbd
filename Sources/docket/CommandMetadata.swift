import ArgumentParser
// ArgumentParser's typed description of a command, the one behind `--help`, the shells' completion scripts and
// `--experimental-dump-help`. It ships inside the ArgumentParser product (the module that product is built on);
// the package offers it as no product of its own.
import ArgumentParserToolInfo
import Foundation

/// What a command declares, as ArgumentParser describes it: its options, their names, value names and how each
/// takes its value, read from `ToolInfoV0` with its serialization version checked. Every list of options the front
/// door and the messages use comes from here, never from a list kept by hand beside the declarations.
struct CommandMetadata {
    /// The version of ArgumentParser's description this reads (`ToolInfoV0`).
    static let serializationVersion = 0

    /// The value name that marks an option whose value is a date (`--due <date>`), alone or as the first of
    /// several (`--due <date|none>`): the front door reads such a value's several words as one date.
    static let dateValueName = "date"

    /// The command as ArgumentParser describes it.
    let command: CommandInfoV0

    /// The description of `type` (its own arguments and its option groups', with the help flag); an internal error
    /// when ArgumentParser describes commands in another version than this reads, or in a form it cannot read.
    init(_ type: ParsableArguments.Type) throws {
        // `_dumpHelp()` is ArgumentParser's one public way to the description: the JSON `--experimental-dump-help`
        // prints, decoded here into its own types.
        let json = Data(type._dumpHelp().utf8)
        let decoder = JSONDecoder()
        let header: ToolInfoHeader
        do {
            header = try decoder.decode(ToolInfoHeader.self, from: json)
        } catch {
            throw CommandMetadataError.unreadable(command: "\(type)", reason: "\(error)")
        }
        guard header.serializationVersion == Self.serializationVersion else {
            throw CommandMetadataError.version(command: "\(type)", found: header.serializationVersion)
        }
        do {
            command = try decoder.decode(ToolInfoV0.self, from: json).command
        } catch {
            throw CommandMetadataError.unreadable(command: "\(type)", reason: "\(error)")
        }
    }

    /// Options and flags, hidden ones included (the help flag too): what the parser reads as an option.
    var options: [ArgumentInfoV0] { (command.arguments ?? []).filter { $0.kind != .positional } }

    /// The names of the options and flags `--help` shows (`--due`, `-C`): the candidates for a "did you mean".
    var shownNames: [String] { options.filter(\.shouldDisplay).flatMap(Self.names) }

    /// Every name an option or flag answers to, hidden ones included.
    var declaredNames: Set<String> { Set(options.flatMap(Self.names)) }

    /// The options that take a value, by each of their names.
    var valued: [String: ArgumentInfoV0] {
        var valued: [String: ArgumentInfoV0] = [:]
        for option in options where option.kind == .option {
            for name in Self.names(option) { valued[name] = option }
        }
        return valued
    }

    /// The options whose value is a date (their value name is `date`, or starts `date|`), by each of their names.
    var dateOptions: [String: ArgumentInfoV0] { valued.filter { Self.isDate($0.value) } }

    /// Whether the command takes the words the parser does not recognise (`parsing: .allUnrecognized`): then it reads
    /// a word that looks like an option itself, and the parser never calls one unknown.
    var readsUnrecognizedWords: Bool {
        (command.arguments ?? []).contains { $0.kind == .positional && $0.parsingStrategy == .allUnrecognized }
    }

    /// Whether an option's value is a date, by its value name.
    static func isDate(_ option: ArgumentInfoV0) -> Bool {
        option.kind == .option
            && option.valueName?.split(separator: "|").first.map(String.init) == dateValueName
    }

    /// An argument's names as typed: `--due`, `-n`, `-long` (a long name with one dash).
    static func names(_ argument: ArgumentInfoV0) -> [String] {
        (argument.names ?? []).map { name in
            switch name.kind {
            case .long: "--" + name.name
            case .short, .longWithSingleDash: "-" + name.name
            }
        }
    }
}

/// ArgumentParser describes a command in a way docket cannot read: a newer version of its description, say, after
/// an update of the package. Not the user's doing, so said as an internal error, never read as "no options".
enum CommandMetadataError: Error, CustomStringConvertible {
    /// The description is of another serialization version than `CommandMetadata.serializationVersion`.
    case version(command: String, found: Int)
    /// The description does not decode as `ToolInfoV0`.
    case unreadable(command: String, reason: String)

    var description: String {
        switch self {
        case let .version(command, found):
            "internal error: ArgumentParser describes \(command) in version \(found) of its command description, "
                + "and docket reads version \(CommandMetadata.serializationVersion); build docket with the "
                + "swift-argument-parser version in Package.resolved, or teach CommandMetadata the new version"
        case let .unreadable(command, reason):
            "internal error: ArgumentParser's description of \(command) does not read as version "
                + "\(CommandMetadata.serializationVersion) (\(reason)); build docket with the swift-argument-parser "
                + "version in Package.resolved"
        }
    }
}
