using PerfLab.Results;
using YamlDotNet.RepresentationModel;

namespace PerfLab.Experiments.Definitions;

/// <summary><c>method:</c> of an experiment file (<see cref="BlockMethod"/>), and why its variants cannot share a process.</summary>
internal static class BlockMethodReader
{
    /// <summary>The key (ExperimentLoader lists it among the keys a file may have).</summary>
    public const string FileKey = "method";

    /// <summary>The experiment with its <c>method:</c> (<see cref="Read"/>).</summary>
    public static ExperimentDefinition With(NodeReader reader, Dictionary<string, YamlNode> doc, ExperimentDefinition experiment) =>
        experiment with { Method = Read(reader, doc, experiment) };

    /// <summary>
    /// <c>method:</c> of an experiment file, checked against what it runs: in-process needs the built-in SUT, models
    /// that take turns in slots, and variants that differ in per-request switches only.
    /// </summary>
    public static BlockMethod Read(NodeReader reader, Dictionary<string, YamlNode> doc, ExperimentDefinition experiment)
    {
        if (reader.OptionalString(doc, FileKey) is not { } word)
        {
            return BlockMethod.FreshProcesses;
        }
        var method = BlockMethod.All.FirstOrDefault(m => m.Key.Equals(word.Trim(), StringComparison.OrdinalIgnoreCase))
            ?? throw ExperimentLoader.Error(reader.Path, doc[FileKey].Start,
                $"method: '{word}' is not a block method; use {string.Join(" or ", BlockMethod.All.Select(m => m.Key))}.");
        if (method.OneProcess && RefusalOfOneProcess(experiment) is { } refusal)
        {
            throw ExperimentLoader.Error(reader.Path, doc[FileKey].Start, $"method: {method.Key} {refusal}");
        }
        return method;
    }

    /// <summary>Why the experiment's variants cannot share one process, or null when they can.</summary>
    public static string? RefusalOfOneProcess(ExperimentDefinition experiment)
    {
        if (experiment.App is not null || experiment.Capacity is not null)
        {
            return "needs the built-in SUT's per-request switch and the load engine's slots: "
                + "an app of your own or a capacity search runs each variant in a process of its own (leave out method).";
        }
        if (experiment.Profiles.FirstOrDefault(p => p.Value.Window is not null) is { Value: not null } windowed)
        {
            // Short windows stop every SUT but the one in its window: with one process, that stops the one serving.
            return $"takes turns in slots on one process; the {windowed.Key} profile's short windows (window:) stop the "
                + "waiting SUTs, which one process cannot (use slots: there, or leave out method).";
        }
        if (experiment.Scenarios.FirstOrDefault(s => !s.Model.AlternatesInSlots) is { } alone)
        {
            return $"takes turns in slots, which a {alone.Model.Kind} scenario cannot (leave out method).";
        }
        var first = experiment.Variants[0];
        foreach (var variant in experiment.Variants.Skip(1))
        {
            if (ProcessWideDifference(first, variant) is { } difference)
            {
                return "alternates the variants inside one process, so they may differ only in per-request switches "
                    + $"({string.Join(", ", BlockMethod.PerRequestSettings)}); '{variant.Name}' differs from '{first.Name}' "
                    + $"in a process-wide one: {difference}. Leave out method (a fresh process per variant) for this experiment.";
            }
        }
        return null;
    }

    /// <summary>The first process-wide thing two variants set differently (GC mode, framework, thread pool, ...), or null.</summary>
    private static string? ProcessWideDifference(VariantDefinition a, VariantDefinition b)
    {
        if (!a.Framework.Equals(b.Framework, StringComparison.OrdinalIgnoreCase))
        {
            return $"framework {a.Framework} vs {b.Framework}";
        }
        if (!a.Conditions.Equals(b.Conditions))
        {
            return "their conditions";
        }
        if (FirstDifference(a.Env, b.Env, _ => true) is { } env)
        {
            return $"environment {env}";
        }
        return FirstDifference(a.Settings, b.Settings, key => !BlockMethod.IsPerRequest(key)) is { } setting ? $"setting {setting}" : null;
    }

    private static string? FirstDifference(IReadOnlyDictionary<string, string> a, IReadOnlyDictionary<string, string> b,
        Func<string, bool> counts)
    {
        var keys = a.Keys.Concat(b.Keys).Where(counts).Distinct(StringComparer.OrdinalIgnoreCase);
        foreach (var key in keys)
        {
            var (x, y) = (a.GetValueOrDefault(key), b.GetValueOrDefault(key));
            if (!string.Equals(x, y, StringComparison.OrdinalIgnoreCase))
            {
                return $"{key} ({x ?? "unset"} vs {y ?? "unset"})";
            }
        }
        return null;
    }
}
