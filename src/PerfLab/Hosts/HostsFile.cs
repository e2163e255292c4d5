using PerfLab.Common;
using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Hosts;

/// <summary>One role's place: an ssh destination (a config alias, [user@]host or ssh://[user@]host[:port]), or this machine
/// ("local").</summary>
public sealed record HostRef(string Role, string Destination)
{
    public const string LocalName = "local";

    public bool IsLocal => Destination == LocalName;

    public override string ToString() => $"{Role} host '{Destination}'";
}

/// <summary>Where PostgreSQL runs: started on a host of the file, or a server the user already has.</summary>
public abstract record DbPlacement;

/// <summary>PostgreSQL started and seeded on this host (the app's when the file names none).</summary>
public sealed record DbOnHost(HostRef Host) : DbPlacement;

/// <summary>An existing server, reached from the app host with this connection string; perflab starts nothing for it.</summary>
public sealed record DbExternal(string ConnectionString) : DbPlacement;

/// <summary>A hosts file: which machine runs the app, the database and each load generator, reached over OpenSSH.</summary>
/// <param name="SshConfig">Passed to <c>ssh -F</c>; absolute (the file gives it relative to itself). Null: the user's own config.</param>
public sealed partial record HostsFile(string Path, string? SshConfig, HostRef App, DbPlacement Db, IReadOnlyList<HostRef> Load)
{
    /// <summary>Every distinct host of the file, each once under its first role; "local" among them when a role is placed here.</summary>
    public IReadOnlyList<HostRef> Hosts =>
    [
        .. new[] { App }.Concat(Db is DbOnHost d ? [d.Host] : []).Concat(Load)
            .DistinctBy(h => h.Destination, StringComparer.Ordinal),
    ];

    public static HostsFile Read(string path)
    {
        if (!File.Exists(path))
        {
            throw new PerfLabException($"hosts file {path} not found.", ExitCode.Usage);
        }
        var full = System.IO.Path.GetFullPath(path);
        return Parse(File.ReadAllText(full), full);
    }

    public static HostsFile Parse(string text, string path)
    {
        var stream = new YamlStream();
        try
        {
            stream.Load(new StringReader(text));
        }
        catch (YamlException ex)
        {
            throw Error(path, ex.Start, $"not valid YAML: {ex.InnerException?.Message ?? ex.Message}");
        }
        if (stream.Documents.Count == 0 || stream.Documents[0].RootNode is not YamlMappingNode root)
        {
            throw new PerfLabException($"{path}:1:1: expected a mapping with app:, load: and optionally db: and ssh-config:.",
                ExitCode.Usage);
        }
        var keys = new Dictionary<string, (YamlNode Key, YamlNode Value)>(StringComparer.Ordinal);
        foreach (var (key, value) in root.Children)
        {
            var name = key is YamlScalarNode { Value: { } k } ? k : "";
            if (name is not ("ssh-config" or "app" or "db" or "load"))
            {
                throw Error(path, key.Start, $"unknown key '{name}': expected ssh-config, app, db or load.");
            }
            keys[name] = (key, value);
        }
        if (!keys.TryGetValue("app", out var app))
        {
            throw Error(path, root.Start, "app: is missing: name the ssh destination that runs the app under test.");
        }
        if (!keys.TryGetValue("load", out var load))
        {
            throw Error(path, root.Start,
                "load: is missing: list one or more generators, e.g. load: [gen-1, gen-2] (local = this machine).");
        }
        var appHost = new HostRef("app", Destination(path, app.Value, "app"));
        return new HostsFile(
            path,
            keys.TryGetValue("ssh-config", out var config) ? SshConfigPath(path, config.Value) : null,
            appHost,
            keys.TryGetValue("db", out var db) ? ReadDb(path, db.Value) : new DbOnHost(appHost with { Role = "db" }),
            Generators(path, load.Value));
    }

    private static List<HostRef> Generators(string path, YamlNode node)
    {
        var items = node is YamlSequenceNode seq ? seq.Children.ToList() : [node];
        if (items.Count == 0)
        {
            throw Error(path, node.Start, "load: lists no generator: name at least one ssh destination, or local.");
        }
        var generators = items.Select(n => new HostRef("load", Destination(path, n, "load"))).ToList();
        if (generators.GroupBy(g => g.Destination, StringComparer.Ordinal).FirstOrDefault(g => g.Count() > 1) is { } twice)
        {
            throw Error(path, node.Start, $"load: names '{twice.Key}' twice: each generator is a host of its own.");
        }
        return generators;
    }

    private static DbPlacement ReadDb(string path, YamlNode node)
    {
        if (node is YamlMappingNode map)
        {
            var entry = map.Children.SingleOrDefault();
            if (map.Children.Count != 1 || entry.Key is not YamlScalarNode { Value: "connection-string" }
                || entry.Value is not YamlScalarNode { Value: { Length: > 0 } cs })
            {
                throw Error(path, node.Start, "db: expected a destination or { connection-string: \"Host=...;Database=...\" }.");
            }
            return new DbExternal(cs);
        }
        return new DbOnHost(new HostRef("db", Destination(path, node, "db")));
    }

    private static string Destination(string path, YamlNode node, string key)
    {
        if (node is not YamlScalarNode { Value: { Length: > 0 } value })
        {
            throw Error(path, node.Start,
                $"{key}: expected an ssh destination (a config alias, user@host or ssh://user@host:port) or local.");
        }
        // A destination is handed to ssh as one argument: one starting with '-' would be read as an option.
        if (value.StartsWith('-') || value.Any(c => char.IsWhiteSpace(c) || char.IsControl(c)))
        {
            throw Error(path, node.Start, $"{key}: '{value}' is not an ssh destination (no spaces, not starting with '-').");
        }
        // OpenSSH reads host:port as a host so named; its form with a port is the URI.
        if (HostColonPort().Match(value) is { Success: true } m)
        {
            var user = m.Groups["user"].Success ? m.Groups["user"].Value + "@" : "";
            throw Error(path, node.Start, $"{key}: '{value}' is not an ssh destination (ssh reads host:port as a host so named): "
                + $"write ssh://{user}{m.Groups["host"].Value}:{m.Groups["port"].Value}, or a Host alias of your ssh config with its "
                + "Port.");
        }
        return value;
    }

    [System.Text.RegularExpressions.GeneratedRegex(@"^(?:(?<user>[^@:/]+)@)?(?<host>[^@:/\[\]]+):(?<port>[0-9]+)$")]
    private static partial System.Text.RegularExpressions.Regex HostColonPort();

    private static string SshConfigPath(string path, YamlNode node)
    {
        if (node is not YamlScalarNode { Value: { Length: > 0 } value })
        {
            throw Error(path, node.Start, "ssh-config: expected the path of an ssh_config file, relative to this file.");
        }
        var full = System.IO.Path.GetFullPath(System.IO.Path.Combine(System.IO.Path.GetDirectoryName(path) ?? ".", value));
        return File.Exists(full) ? full : throw Error(path, node.Start, $"ssh-config: {full} not found.");
    }

    private static PerfLabException Error(string path, Mark mark, string message) =>
        new($"{path}:{mark.Line}:{mark.Column}: {message}", ExitCode.Usage);
}
