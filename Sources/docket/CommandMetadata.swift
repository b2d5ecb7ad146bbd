import ArgumentParser
// ArgumentParser's typed description of a command, the one behind `--help`, the shells' completion scripts and
// `--experimental-dump-help`. It ships inside the ArgumentParser product (the module that product is built on);
// the package offers it as no product of its own.
import ArgumentParserToolInfo
import Foundation
import Synchronization

/// What a command declares, as ArgumentParser describes it: its options, their names, value names and how each
/// takes its value, read from `ToolInfoV0` with its serialization version checked. Every list of options the front
/// door and the messages use comes from here, never from a list kept by hand beside the declarations.
struct CommandMetadata: Sendable {
    /// The version of ArgumentParser's description this reads (`ToolInfoV0`).
    static let serializationVersion = 0

    /// The value name that marks an option whose value is a date (`--due <date>`), alone or as the first of
    /// several (`--due <date|none>`): the front door reads such a value's several words as one date.
    static let dateValueName = "date"

    /// An option or a flag, as the parser reads it.
    struct Option: Sendable {
        /// Every name it answers to, as typed: `--due`, `-n`, `-long` (a long name with one dash).
        let names: [String]
        /// Whether it takes a value (an option), rather than standing alone (a flag).
        let takesValue: Bool
        /// Whether its first word is its value whatever that word is (`parsing: .unconditional`: `--due -1d`).
        let takesAnyWord: Bool
        /// Whether `--help` shows it.
        let isShown: Bool
        /// Its value's name, as `--help` shows it: `date`, `date|none`, `n`.
        let valueName: String?

        /// Whether its value is a date: its value name is `date`, or starts `date|`.
        var isDate: Bool {
            takesValue && valueName?.split(separator: "|").first.map(String.init) == CommandMetadata.dateValueName
        }
    }

    /// Options and flags, hidden ones included (the help flag too): what the parser reads as an option.
    let options: [Option]

    /// Whether the command takes the words the parser does not recognise (`parsing: .allUnrecognized`): then it reads
    /// a word that looks like an option itself, and the parser never calls one unknown.
    let readsUnrecognizedWords: Bool

    /// The description of `type` (its own arguments and its option groups', with the help flag), read once per run;
    /// an internal error when ArgumentParser describes commands in another version than this reads, or in a form it
    /// cannot read.
    static func of(_ type: ParsableArguments.Type) throws -> CommandMetadata {
        let key = ObjectIdentifier(type)
        if let known = read.withLock({ $0[key] }) { return known }
        let metadata = try CommandMetadata(json: Data(type._dumpHelp().utf8), of: "\(type)")
        read.withLock { $0[key] = metadata }
        return metadata
    }

    private static let read = Mutex<[ObjectIdentifier: CommandMetadata]>([:])

    /// The description in `json`, as `_dumpHelp()` (ArgumentParser's one public way to it, the JSON
    /// `--experimental-dump-help` prints) gives it for `command`.
    init(json: Data, of command: String) throws {
        let decoder = JSONDecoder()
        let header: ToolInfoHeader
        do {
            header = try decoder.decode(ToolInfoHeader.self, from: json)
        } catch {
            throw CommandMetadataError.unreadable(command: command, reason: "\(error)")
        }
        guard header.serializationVersion == Self.serializationVersion else {
            throw CommandMetadataError.version(command: command, found: header.serializationVersion)
        }
        let info: CommandInfoV0
        do {
            info = try decoder.decode(ToolInfoV0.self, from: json).command
        } catch {
            throw CommandMetadataError.unreadable(command: command, reason: "\(error)")
        }
        let arguments = info.arguments ?? []
        options = arguments.filter { $0.kind != .positional }.map { argument in
            Option(
                names: (argument.names ?? []).map { name in
                    switch name.kind {
                    case .long: "--" + name.name
                    case .short, .longWithSingleDash: "-" + name.name
                    }
                },
                takesValue: argument.kind == .option, takesAnyWord: argument.parsingStrategy == .unconditional,
                isShown: argument.shouldDisplay, valueName: argument.valueName)
        }
        readsUnrecognizedWords = arguments.contains {
            $0.kind == .positional && $0.parsingStrategy == .allUnrecognized
        }
    }

    /// The names of the options and flags `--help` shows (`--due`, `-C`): the candidates for a "did you mean".
    var shownNames: [String] { options.filter(\.isShown).flatMap(\.names) }

    /// Every name an option or flag answers to, hidden ones included.
    var declaredNames: Set<String> { Set(options.flatMap(\.names)) }

    /// The options that take a value, by each of their names.
    var valued: [String: Option] {
        var valued: [String: Option] = [:]
        for option in options where option.takesValue {
            for name in option.names { valued[name] = option }
        }
        return valued
    }

    /// The options whose value is a date, by each of their names.
    var dateOptions: [String: Option] { valued.filter { $0.value.isDate } }
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
