using System.Security.Cryptography;
using System.Text;
using PerfLab.Apps;
using PerfLab.Common;

namespace PerfLab.Experiments.Definitions;

/// <summary>What `perflab compare` was given: the app, the scenarios' paths and load, and the variants as written.</summary>
/// <param name="App">A project folder or .csproj, or a built .dll; null when <paramref name="Command"/> starts the app.</param>
/// <param name="Variants">Each "NAME[: ITEM ...]" (see <see cref="CompareDefinition.ParseVariant"/>); the first is the baseline.</param>
public sealed record CompareSpec(string? App, string? Command, IReadOnlyList<string> Urls, int? Users, int? Rate,
    IReadOnlyList<string> Variants, string ReadyPath);

/// <summary>
/// Turns `perflab compare`'s command line into an experiment, the same as a file with an app: section would give, so
/// the one-line compare gets the same runner, report and verdicts.
/// </summary>
public static class CompareDefinition
{
    public const string Name = "compare";

    public static ExperimentDefinition Build(CompareSpec spec, string workingFolder)
    {
        var app = App(spec, workingFolder);
        if (spec.Variants.Count < 2)
        {
            throw Usage("give at least two --variant (a baseline and one to compare), e.g. --variant before --variant "
                + "\"after: DOTNET_gcServer=1\".");
        }
        var variants = spec.Variants.Select(v => ParseVariant(v, app)).ToList();
        if (variants.GroupBy(v => v.Name).FirstOrDefault(g => g.Count() > 1) is { } twice)
        {
            throw Usage($"variant '{twice.Key}' is given twice.");
        }
        if (spec.Urls.Count == 0)
        {
            throw Usage("give at least one --url, a path on the app such as /api/orders.");
        }
        if (spec.Urls.FirstOrDefault(u => !u.StartsWith('/')) is { } bad)
        {
            throw Usage($"--url '{bad}' must be a path on the app starting with '/'.");
        }
        if (spec.Users is not null && spec.Rate is not null)
        {
            throw Usage("give --users (closed model) or --rate (open model), not both.");
        }
        var text = string.Join("\n", new[] { spec.App ?? spec.Command ?? "", $"{spec.Users}/{spec.Rate}" }.Concat(spec.Urls)
            .Concat(spec.Variants));
        return new ExperimentDefinition
        {
            Name = Name,
            Title = $"{string.Join(" / ", variants.Select(v => v.Name))} on {string.Join(", ", spec.Urls)}",
            Seed = "",
            Reproduces = "",
            Baseline = variants[0].Name,
            Variants = variants,
            Scenarios = spec.Urls.Select((url, i) => Scenario(url, i, spec)).ToList(),
            Profiles = DefaultProfiles.All,
            Claims = [],
            App = app,
            FilePath = "(perflab compare command line)",
            FileHash = Convert.ToHexString(SHA256.HashData(Encoding.UTF8.GetBytes(text)))[..16].ToLowerInvariant(),
        };
    }

    /// <summary>
    /// "NAME" or "NAME: ITEM ITEM ..." (items split on spaces or commas): KEY=VALUE is an environment variable,
    /// --Key=Value a configuration key (as the app's command line takes it), @REF a git ref of the project.
    /// </summary>
    public static VariantDefinition ParseVariant(string text, AppDefinition app)
    {
        var colon = text.IndexOf(':');
        var name = (colon < 0 ? text : text[..colon]).Trim();
        if (name.Length == 0 || name.Any(char.IsWhiteSpace))
        {
            throw Usage($"--variant '{text}': expected NAME or NAME: ITEM ..., e.g. \"cached: --Report:Cache=true\" or "
                + "\"server: DOTNET_gcServer=1\".");
        }
        var env = new Dictionary<string, string>();
        var config = new Dictionary<string, string>();
        string? gitRef = null;
        var items = colon < 0
            ? []
            : text[(colon + 1)..].Split(new[] { ' ', ',' }, StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        foreach (var item in items)
        {
            if (item.StartsWith('@') && item.Length > 1)
            {
                gitRef = app.Kind == AppSourceKind.Project
                    ? item[1..]
                    : throw Usage($"--variant '{text}': {item} builds a git ref of a project; give the app as a project folder.");
                continue;
            }
            var equals = item.IndexOf('=');
            var key = equals > 0 ? item[..equals] : "";
            if (key.Length == 0 || key == "--")
            {
                throw Usage($"--variant '{text}': '{item}' is not KEY=VALUE (environment), --Key=Value "
                    + "(configuration) or @REF (a git ref).");
            }
            (key.StartsWith("--", StringComparison.Ordinal) ? config : env)[key.TrimStart('-')] = item[(equals + 1)..];
        }
        return new VariantDefinition { Name = name, Env = env, Config = config, Ref = gitRef };
    }

    private static AppDefinition App(CompareSpec spec, string workingFolder)
    {
        if ((spec.App is null) == (spec.Command is null))
        {
            throw Usage("give the app (a project folder, .csproj or .dll) or --command, exactly one of them.");
        }
        if (spec.Command is { } command)
        {
            var placeholder = command.Contains(AppLaunch.PortPlaceholder, StringComparison.Ordinal);
            return new AppDefinition
            {
                Kind = AppSourceKind.Command, Path = command, BaseFolder = workingFolder, ReadyPath = spec.ReadyPath,
                Binding = placeholder ? AppBinding.Placeholder : AppBinding.Environment,
            };
        }
        var path = Path.GetFullPath(Path.Combine(workingFolder, spec.App!));
        var dll = path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase);
        if (dll ? !File.Exists(path) : !Directory.Exists(path) && !File.Exists(path))
        {
            throw Usage($"the app '{spec.App}' does not exist ({path}): give a project folder, a .csproj or a built .dll.");
        }
        return new AppDefinition
        {
            Kind = dll ? AppSourceKind.Dll : AppSourceKind.Project, Path = path, BaseFolder = workingFolder,
            ReadyPath = spec.ReadyPath, Binding = AppBinding.Urls,
        };
    }

    private static ScenarioDefinition Scenario(string url, int index, CompareSpec spec) => new()
    {
        Name = spec.Urls.Count == 1 ? "load" : $"url{index + 1}",
        Url = url,
        Model = spec.Rate is { } rate ? Load.LoadPlanBuilder.Open(rate) : new Load.ClosedModel(spec.Users ?? 10),
    };

    private static PerfLabException Usage(string message) => new(message, ExitCode.Usage);
}
