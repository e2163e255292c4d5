using System.Security.Cryptography;
using PerfLab.Common;
using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary>
/// Reads experiment files and checks them against the schema in experiments/README.md. Every problem is reported
/// as "file:line:column: what was expected", and a malformed file stops the run before anything starts.
/// </summary>
public static class ExperimentLoader
{

    /// <summary>Every key a load model reads from its scenario.</summary>
    private static readonly string[] ModelKeys = [.. Load.LoadModel.Cases.SelectMany(r => r.Keys).Distinct()];

    /// <summary>The built-in experiments folder: the checkout's, or the installed tool's own copy.</summary>
    public static string DefaultFolder => PerfLabPaths.ExperimentsFolder;

    public static IReadOnlyList<ExperimentDefinition> LoadFolder(string folder)
    {
        if (!Directory.Exists(folder))
        {
            throw new PerfLabException($"the experiments folder {folder} does not exist.", ExitCode.Usage);
        }
        return Directory.EnumerateFiles(folder, "*.yaml").Order(StringComparer.Ordinal).Select(LoadFile).ToList();
    }

    public static ExperimentDefinition LoadFile(string path)
    {
        string text;
        try
        {
            text = File.ReadAllText(path);
        }
        catch (IOException ex)
        {
            throw new PerfLabException($"cannot read {path}: {ex.Message}", ExitCode.Usage);
        }
        return Parse(text, path);
    }

    public static ExperimentDefinition Parse(string text, string path)
    {
        var root = Document(text, path);
        var reader = new NodeReader(path);
        var doc = reader.Mapping(root, "the experiment", ["name", "title", "seed", "reproduces", "baseline", "variants", "load", "profiles",
            "claims", "thresholds", "margin", "app", "decide", "method", CapacityReader.Key, .. ConditionsReader.ExperimentKeys]);

        var name = reader.RequiredString(doc, root, "name");
        var expectedName = Path.GetFileNameWithoutExtension(path);
        if (name != expectedName)
        {
            throw Error(path, doc["name"].Start, $"name '{name}' must match the file name '{expectedName}'.");
        }
        var app = doc.TryGetValue("app", out var appNode) ? AppDefinitionReader.Read(reader, appNode) : null;
        var variants = ReadVariants(reader, doc, root, app);
        var baseline = reader.RequiredString(doc, root, "baseline");
        if (variants.All(v => v.Name != baseline))
        {
            throw Error(path, doc["baseline"].Start,
                $"baseline '{baseline}' is not one of the variants ({string.Join(", ", variants.Select(v => v.Name))}).");
        }
        var capacity = CapacityReader.Read(reader, doc);
        var scenarios = ReadScenarios(reader, doc, root, variants, capacity);
        var claims = doc.ContainsKey("claims")
            ? reader.Sequence(doc, root, "claims").Select(node => ClaimReader.Read(reader, node, variants, scenarios, baseline)).ToList()
            : [];
        var conditions = ConditionsReader.Read(reader, doc);
        var sweep = ConditionsReader.ReadSweep(reader, doc);
        ConditionsReader.CheckSweep(reader, doc, sweep, conditions, variants, scenarios);

        return BlockMethodReader.With(reader, doc, CapacityReader.Checked(reader, doc, new ExperimentDefinition
        {
            Name = name,
            // A seed experiment cites its article; an app of one's own may have none.
            Title = app is null ? reader.RequiredString(doc, root, "title") : reader.OptionalString(doc, "title") ?? name,
            Seed = app is null ? reader.RequiredString(doc, root, "seed") : reader.OptionalString(doc, "seed") ?? "",
            Reproduces = app is null ? reader.RequiredString(doc, root, "reproduces") : reader.OptionalString(doc, "reproduces") ?? "",
            Baseline = baseline,
            Variants = variants,
            Scenarios = scenarios,
            Profiles = ReadProfiles(reader, doc, root, scenarios),
            Claims = claims,
            Thresholds = RequestReader.ReadThresholds(reader, doc, scenarios),
            Margin = reader.OptionalPercent(doc, "margin"),
            FilePath = path,
            App = app,
            FileHash = Convert.ToHexString(SHA256.HashData(System.Text.Encoding.UTF8.GetBytes(text)))[..16].ToLowerInvariant(),
            Conditions = conditions,
            Sweep = sweep,
            RunsByDefault = ConditionsReader.RunsByDefault(reader, doc),
            Decide = CapacityReader.Decide(reader, doc, capacity),
            Capacity = capacity,
        }));
    }

    private static YamlMappingNode Document(string text, string path)
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
        return stream.Documents.Count > 0 && stream.Documents[0].RootNode is YamlMappingNode root
            ? root
            : throw new PerfLabException($"{path}:1:1: expected a mapping with name, title, seed, variants, load, profiles.",
                ExitCode.Usage);
    }

    private static List<VariantDefinition> ReadVariants(NodeReader reader, Dictionary<string, YamlNode> doc, YamlNode root,
        AppDefinition? app)
    {
        var variants = reader.Sequence(doc, root, "variants").Select(node => ReadVariant(reader, node, app)).ToList();
        if (variants.Count < 2)
        {
            throw Error(reader.Path, doc["variants"].Start, "expected at least two variants (a baseline and one to compare).");
        }
        var duplicate = variants.GroupBy(v => v.Name).FirstOrDefault(g => g.Count() > 1);
        if (duplicate is not null)
        {
            throw Error(reader.Path, doc["variants"].Start, $"variant '{duplicate.Key}' is defined twice.");
        }
        return variants;
    }

    private static List<ScenarioDefinition> ReadScenarios(NodeReader reader, Dictionary<string, YamlNode> doc, YamlNode root,
        List<VariantDefinition> variants, CapacityDefinition? capacity)
    {
        var load = reader.Mapping(reader.Required(doc, root, "load"), "load", ["scenarios"]);
        var scenarios = reader.Sequence(load, doc["load"], "scenarios").Select(node => ReadScenario(reader, node, capacity)).ToList();
        if (scenarios.Count == 0)
        {
            throw Error(reader.Path, doc["load"].Start, "expected at least one scenario under load.scenarios.");
        }
        // The latency proxy is the app's one network path for the run.
        if (scenarios.Count > 1 && scenarios.FirstOrDefault(s => s.Model.PathRtt is not null) is { } alone)
        {
            throw Error(reader.Path, doc["load"].Start,
                $"scenario '{alone.Name}' goes through a latency proxy of its own (rtt:) and runs alone: expected exactly one scenario.");
        }
        foreach (var scenario in scenarios)
        {
            foreach (var variant in variants)
            {
                var unresolved = FindVars(scenario.Url).Where(v => !variant.Vars.ContainsKey(v)).ToList();
                if (unresolved.Count > 0)
                {
                    throw Error(reader.Path, doc["variants"].Start,
                        $"variant '{variant.Name}' gives no value for ${{{unresolved[0]}}} used in scenario "
                            + $"'{scenario.Name}' (add it under vars).");
                }
            }
        }
        return scenarios;
    }

    private static Dictionary<ProfileName, ProfileDefinition> ReadProfiles(NodeReader reader, Dictionary<string, YamlNode> doc,
        YamlNode root,
        List<ScenarioDefinition> scenarios)
    {
        // A profile left out takes its default (DefaultProfiles), so a file for one's own app may name none; batches
        // have no default: a burst or upload experiment gives every profile its own.
        var profilesNode = doc.TryGetValue("profiles", out var given) ? reader.Mapping(given, "profiles", ProfileNames.Keys) : [];
        var profiles = new Dictionary<ProfileName, ProfileDefinition>();
        var batched = scenarios.Any(s => s.Model.CountsBatches);
        foreach (var profile in ProfileNames.Keys)
        {
            if (!profilesNode.TryGetValue(profile, out var node))
            {
                profiles[ProfileNames.Parse(profile)] = batched
                    ? throw Error(reader.Path, (given ?? root).Start,
                        $"expected a '{profile}' profile: burst and upload scenarios need each profile's batches (all "
                            + $"of {string.Join(", ", ProfileNames.Keys)}).")
                    : DefaultProfiles.All[ProfileNames.Parse(profile)];
                continue;
            }
            profiles[ProfileNames.Parse(profile)] = ReadProfile(reader, node, profile, scenarios.Any(s => s.Model.CountsBatches),
                scenarios.Any(s => !s.Model.AlternatesInSlots));
        }
        return profiles;
    }

    private static VariantDefinition ReadVariant(NodeReader reader, YamlNode node, AppDefinition? app)
    {
        var map = reader.Mapping(node, "a variant",
            ["name", "settings", "env", "framework", "vars", .. ConditionsReader.VariantKeys, .. AppDefinitionReader.VariantKeys]);
        var framework = reader.OptionalString(map, "framework") ?? SutProcesses.SutLaunch.DefaultFramework;
        if (!SutProcesses.SutLaunch.KnownFrameworks.Contains(framework))
        {
            throw Error(reader.Path, map["framework"].Start,
                $"framework '{framework}' is not one of {string.Join(", ", SutProcesses.SutLaunch.KnownFrameworks)}.");
        }
        return AppDefinitionReader.ReadVariantKeys(reader, map, new VariantDefinition
        {
            Name = reader.RequiredString(map, node, "name"),
            Settings = reader.StringMap(map, "settings"),
            Env = reader.StringMap(map, "env"),
            Framework = framework,
            Vars = reader.StringMap(map, "vars"),
            Conditions = ConditionsReader.Read(reader, map),
        }, app);
    }

    private static ScenarioDefinition ReadScenario(NodeReader reader, YamlNode node, CapacityDefinition? capacity)
    {
        var map = reader.Mapping(node, "a scenario", ["name", "url", "model", "feed", .. ModelKeys, .. RequestReader.ScenarioKeys]);
        var model = capacity is null
            ? YamlModelSettings.ReadModel(reader, map, node)
            : CapacityReader.ScenarioModel(reader, map, capacity, ModelKeys);
        var url = reader.RequiredString(map, node, "url");
        if (!url.StartsWith('/') && !url.StartsWith("${", StringComparison.Ordinal))
        {
            throw Error(reader.Path, map["url"].Start, $"url '{url}' must be a path on the SUT (or the app) starting with '/'.");
        }
        var scenario = new ScenarioDefinition
        {
            Name = reader.RequiredString(map, node, "name"),
            Url = url,
            Model = model,
            Feed = map.TryGetValue("feed", out var feedNode) ? ReadFeed(reader, feedNode) : null,
            Request = RequestReader.Read(reader, map),
        };
        if (scenario.Model.MakesItsRequest && !ReferenceEquals(scenario.Request, Load.RequestSpec.Get))
        {
            throw Error(reader.Path, map["model"].Start,
                $"the {model.Kind} model makes its own request: method, headers, body and expect apply to the other models.");
        }
        var token = scenario.Feed is null ? null : "{" + scenario.Feed.Placeholder + "}";
        if (token is not null && !url.Contains(token, StringComparison.Ordinal)
            && (scenario.Request.Body is null || scenario.Request.Body.AsSpan().IndexOf(System.Text.Encoding.UTF8.GetBytes(token)) < 0))
        {
            throw Error(reader.Path, map["feed"].Start, $"the feed fills {token} but neither the url nor the body has that placeholder.");
        }
        return scenario;
    }

    private static FeedDefinition ReadFeed(NodeReader reader, YamlNode node)
    {
        var map = reader.Mapping(node, "a feed", ["placeholder", "from", "order"]);
        var order = reader.OptionalString(map, "order") ?? "circular";
        if (order is not ("circular" or "random"))
        {
            throw Error(reader.Path, map["order"].Start, $"order '{order}' is not one of circular, random.");
        }
        return new FeedDefinition(reader.RequiredString(map, node, "placeholder"), reader.RequiredString(map, node, "from"),
            order == "random");
    }

    private static ProfileDefinition ReadProfile(NodeReader reader, YamlNode node, string name, bool batched, bool noSlots)
    {
        var map = reader.Mapping(node, $"profile '{name}'",
            ["warmup", "steady", "duration", "repeat", "precision", "max-repeat", "batches", "size", "slots", "window", "env"]);
        var warmup = reader.RequiredDuration(map, node, "warmup", allowZero: true);
        var duration = reader.RequiredDuration(map, node, "duration", allowZero: false);
        var repeat = reader.RequiredInt(map, node, "repeat", 1, 100);
        var batches = batched ? reader.RequiredInt(map, node, "batches", 1, 1000) : 0;
        long? size = map.ContainsKey("size") ? reader.RequiredSize(map, node, "size") : null;
        var precision = reader.OptionalPercent(map, "precision");
        int? maxRepeat = map.ContainsKey("max-repeat") ? reader.RequiredInt(map, node, "max-repeat", repeat, 1000) : null;
        if (maxRepeat is not null && precision is null)
        {
            throw Error(reader.Path, map["max-repeat"].Start,
                "max-repeat caps the blocks added for a precision: give precision too (e.g. precision: 5%).");
        }
        var steady = reader.OptionalBool(map, "steady");
        if (steady && (batched || warmup <= TimeSpan.Zero))
        {
            throw Error(reader.Path, map["steady"].Start, batched
                ? "steady applies to closed, open and ramp scenarios; burst and upload runs count batches instead."
                : "steady: true needs a warmup above zero: it is the most the warm-up may last.");
        }
        int? slots = map.ContainsKey("slots") ? reader.RequiredInt(map, node, "slots", 2, 100) : null;
        var window = ReadWindow(reader, map, node, duration, slots);
        slots ??= window is { } w ? (int)Math.Round(duration / w) : null;
        if (slots is not null && noSlots)
        {
            throw Error(reader.Path, map[window is null ? "slots" : "window"].Start,
                "slots apply to closed and open scenarios only: a burst or an upload counts batches, a ramp needs its steps in one go.");
        }
        return new ProfileDefinition(warmup, duration, repeat, batches, size)
        {
            Slots = slots,
            Window = window,
            PrecisionPercent = precision,
            MaxRepeat = maxRepeat,
            WarmupUntilSteady = steady,
            Env = reader.StringMap(map, "env"),
        };
    }

    /// <summary>
    /// A short-alternation window (<see cref="ProfileDefinition.Window"/>): 100 ms to 1 s, the duration a whole number
    /// of them (at least two), and no <c>slots</c> beside it (the window sets them).
    /// </summary>
    private static TimeSpan? ReadWindow(NodeReader reader, Dictionary<string, YamlNode> map, YamlNode node, TimeSpan duration, int? slots)
    {
        if (!map.ContainsKey("window"))
        {
            return null;
        }
        var window = reader.RequiredDuration(map, node, "window", allowZero: false);
        var count = duration / window;
        if (slots is not null || window < TimeSpan.FromMilliseconds(100) || window > TimeSpan.FromSeconds(1)
            || count < 2 || Math.Abs(count - Math.Round(count)) > 1e-6)
        {
            throw Error(reader.Path, map["window"].Start,
                "window is a short-alternation window from 100ms to 1s that divides the duration at least twice "
                    + "(e.g. duration: 6s, window: 250ms), given instead of slots.");
        }
        return window;
    }

    /// <summary>The ${name} variables a URL template uses.</summary>
    public static IEnumerable<string> FindVars(string url)
    {
        var index = 0;
        while ((index = url.IndexOf("${", index, StringComparison.Ordinal)) >= 0)
        {
            var end = url.IndexOf('}', index);
            if (end < 0)
            {
                yield break;
            }
            yield return url[(index + 2)..end];
            index = end + 1;
        }
    }

    internal static PerfLabException Error(string path, Mark mark, string message) =>
        new($"{path}:{mark.Line}:{mark.Column}: {message}", ExitCode.Usage);
}
