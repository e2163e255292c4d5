using PerfLab.Apps;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// Reads the <c>app:</c> section and the variant keys that belong to it (config, project, ref), checked against the
/// schema in experiments/README.md: a problem stops the run before anything starts, with file:line:column.
/// </summary>
internal static class AppDefinitionReader
{
    public static readonly IReadOnlyList<string> VariantKeys = ["config", "project", "ref"];

    private static readonly IReadOnlyList<string> BuiltInOnly = ["settings", "framework"];

    public static AppDefinition Read(NodeReader reader, YamlNode node)
    {
        var map = reader.Mapping(node, "app", ["project", "dll", "command", "bind", "ready", "config-via", "env"]);
        var sources = new[] { "project", "dll", "command" }.Where(map.ContainsKey).ToList();
        if (sources.Count != 1)
        {
            throw ExperimentLoader.Error(reader.Path, node.Start,
                "expected exactly one of app.project (a folder perflab publishes), app.dll (a built app) or app.command (a command line).");
        }
        var baseFolder = Path.GetDirectoryName(Path.GetFullPath(reader.Path))!;
        var kind = sources[0] switch { "project" => AppSourceKind.Project, "dll" => AppSourceKind.Dll, _ => AppSourceKind.Command };
        var text = reader.RequiredString(map, node, sources[0]);
        var path = kind == AppSourceKind.Command
            ? text
            : ExistingPath(reader, map[sources[0]], baseFolder, text, kind == AppSourceKind.Dll);
        var (readyPath, readyTimeout) = map.TryGetValue("ready", out var ready)
            ? ReadReady(reader, ready)
            : ("/", AppLaunch.DefaultReadyTimeout);
        return new AppDefinition
        {
            Kind = kind,
            Path = path,
            Binding = ReadBinding(reader, map, kind, text),
            ReadyPath = readyPath,
            ReadyTimeout = readyTimeout,
            ConfigurationVia = (reader.OptionalString(map, "config-via") ?? "args") switch
            {
                "args" => ConfigurationVia.Arguments,
                "env" => ConfigurationVia.Environment,
                var other => throw ExperimentLoader.Error(reader.Path, map["config-via"].Start,
                    $"config-via '{other}' is not one of args, env."),
            },
            Env = reader.StringMap(map, "env"),
            BaseFolder = baseFolder,
        };
    }

    /// <summary>
    /// Checks a variant's keys against the thing under test: config, project and ref need an app; settings and
    /// framework are the built-in SUT's. Returns the variant with its app keys read.
    /// </summary>
    public static VariantDefinition ReadVariantKeys(NodeReader reader, Dictionary<string, YamlNode> map, VariantDefinition variant,
        AppDefinition? app)
    {
        var wrong = (app is null ? VariantKeys : BuiltInOnly).FirstOrDefault(map.ContainsKey);
        if (wrong is not null)
        {
            throw ExperimentLoader.Error(reader.Path, map[wrong].Start, app is null
                ? $"'{wrong}' belongs to an app of your own: add an app: section (project, dll or command), or "
                    + "use settings for the built-in SUT."
                : $"'{wrong}' is a setting of the built-in SUT; for your app use config (configuration keys) or env.");
        }
        if (app is null)
        {
            return variant;
        }
        var project = reader.OptionalString(map, "project") is { } p
            ? ExistingPath(reader, map["project"], app.BaseFolder, p, file: false)
            : null;
        var gitRef = reader.OptionalString(map, "ref");
        if (gitRef is not null && project is null && app.Kind != AppSourceKind.Project)
        {
            throw ExperimentLoader.Error(reader.Path, map["ref"].Start,
                "ref builds a commit of a project: give app.project, or this variant's project.");
        }
        return variant with { Config = reader.StringMap(map, "config"), Project = project, Ref = gitRef };
    }

    private static AppBinding ReadBinding(NodeReader reader, Dictionary<string, YamlNode> map, AppSourceKind kind, string text)
    {
        var hasPlaceholder = text.Contains(AppLaunch.PortPlaceholder, StringComparison.Ordinal);
        var bind = reader.OptionalString(map, "bind") ?? (kind != AppSourceKind.Command ? "urls" : hasPlaceholder ? "placeholder" : "env");
        var binding = bind switch
        {
            "urls" => AppBinding.Urls,
            "env" => AppBinding.Environment,
            "placeholder" => AppBinding.Placeholder,
            _ => throw ExperimentLoader.Error(reader.Path, map["bind"].Start, $"bind '{bind}' is not one of urls, env, placeholder."),
        };
        if (binding == AppBinding.Placeholder && !hasPlaceholder)
        {
            // Only an explicit bind can ask for a placeholder the command lacks.
            throw ExperimentLoader.Error(reader.Path, map["bind"].Start,
                "bind: placeholder needs {port} in app.command, where perflab writes the port it chose.");
        }
        return binding;
    }

    private static (string Path, TimeSpan Timeout) ReadReady(NodeReader reader, YamlNode node)
    {
        if (node is YamlScalarNode { Value: { } single })
        {
            return (CheckedPath(reader, node, single), AppLaunch.DefaultReadyTimeout);
        }
        var map = reader.Mapping(node, "app.ready", ["path", "timeout"]);
        var path = reader.OptionalString(map, "path") ?? "/";
        var timeout = map.ContainsKey("timeout")
            ? reader.RequiredDuration(map, node, "timeout", allowZero: false)
            : AppLaunch.DefaultReadyTimeout;
        return (CheckedPath(reader, map.GetValueOrDefault("path", node), path), timeout);
    }

    private static string CheckedPath(NodeReader reader, YamlNode node, string path) => path.StartsWith('/')
        ? path
        : throw ExperimentLoader.Error(reader.Path, node.Start,
            $"ready path '{path}' must be a path on the app starting with '/', like /healthz.");

    private static string ExistingPath(NodeReader reader, YamlNode node, string baseFolder, string text, bool file)
    {
        var full = Path.GetFullPath(Path.Combine(baseFolder, text));
        if (file ? !File.Exists(full) : !Directory.Exists(full) && !File.Exists(full))
        {
            throw ExperimentLoader.Error(reader.Path, node.Start,
                $"{(file ? "DLL" : "project")} '{text}' does not exist (resolved against the experiment file's folder: {full}).");
        }
        return full;
    }
}
