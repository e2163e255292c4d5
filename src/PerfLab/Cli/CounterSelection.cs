using System.CommandLine;
using PerfLab.Counters;

namespace PerfLab.Cli;

/// <summary>
/// `--counters` as dotnet-counters takes it: providers, comma-separated, each optionally narrowed to some of its
/// counters in brackets, e.g. <c>System.Runtime[cpu-usage,working-set],Npgsql</c>. A provider is read whole (its
/// session costs the same), and the counters not asked for are left out of what is shown and written.
/// </summary>
internal sealed record CounterSelection(IReadOnlyList<string> Providers, IReadOnlySet<string>? Only)
{
    public static CounterSelection All { get; } = new(CounterCatalog.Providers, null);

    public static Option<CounterSelection> Option() => new("--counters")
    {
        Description = "The providers to read, comma-separated, named as dotnet-counters names them, each optionally narrowed to " +
            "some of its counters: System.Runtime[cpu-usage,working-set]. Providers: " +
            $"{string.Join(", ", CounterCatalog.Providers)} (default: all). ASP.NET Core's Hosting and Kestrel counters " +
            "cost the target CPU on every request; System.Runtime and Npgsql (the database client's meter) are what perflab run reads.",
        HelpName = "provider[counter,...],...",
        Arity = ArgumentArity.OneOrMore,
        AllowMultipleArgumentsPerToken = true,
        CustomParser = r =>
        {
            var selection = Parse(string.Join(',', r.Tokens.Select(t => t.Value)), out var error);
            if (error is not null)
            {
                r.AddError("--counters: " + error);
            }
            return selection ?? All;
        },
    };

    /// <summary>The selection a --counters text names; null and a message naming what is wrong otherwise.</summary>
    public static CounterSelection? Parse(string text, out string? error)
    {
        var providers = new List<string>();
        var only = new HashSet<string>(StringComparer.Ordinal);
        var narrowed = false;
        foreach (var entry in SplitOutsideBrackets(text))
        {
            var open = entry.IndexOf('[', StringComparison.Ordinal);
            var name = open < 0 ? entry : entry[..open].Trim();
            var provider = CounterCatalog.ParseProviders([name], out error);
            if (provider is null)
            {
                return null;
            }
            var known = CounterCatalog.Of(provider).Select(d => d.Name).ToList();
            if (open < 0)
            {
                only.UnionWith(known);
            }
            else
            {
                if (!entry.EndsWith(']'))
                {
                    error = $"'{entry}': close the counter list with ']', e.g. System.Runtime[cpu-usage,working-set].";
                    return null;
                }
                var counters = entry[(open + 1)..^1].Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
                var unknown = counters.FirstOrDefault(c => !known.Contains(c));
                if (unknown is not null || counters.Length == 0)
                {
                    error = $"'{entry}': {(unknown is null ? "no counter named" : $"{provider[0]} has no counter '{unknown}'")}; its "
                        + $"counters: {string.Join(", ", known)}.";
                    return null;
                }
                only.UnionWith(counters);
                narrowed = true;
            }
            providers.AddRange(provider.Except(providers));
        }
        error = providers.Count == 0 ? $"name at least one provider: {string.Join(", ", CounterCatalog.Providers)}." : null;
        return error is null ? new CounterSelection(providers, narrowed ? only : null) : null;
    }

    /// <summary>The counters shown and written: those asked for, in catalog order.</summary>
    public IReadOnlyList<CounterDefinition> Definitions => [.. CounterCatalog.Of(Providers).Where(d => Only?.Contains(d.Name) ?? true)];

    /// <summary>The recording with only the counters asked for.</summary>
    public CounterRecording Keep(CounterRecording recording) => Only is not { } only ? recording : recording with
    {
        Counters = [.. recording.Counters.Where(c => only.Contains(c.Name))],
        Samples = [.. recording.Samples.Select(s => s with { Values = s.Values.Where(v => only.Contains(v.Key)).ToDictionary() })],
    };

    public CounterSample Keep(CounterSample sample) => Only is not { } only
        ? sample
        : sample with { Values = sample.Values.Where(v => only.Contains(v.Key)).ToDictionary() };

    private static IEnumerable<string> SplitOutsideBrackets(string text)
    {
        var depth = 0;
        var start = 0;
        for (var i = 0; i <= text.Length; i++)
        {
            if (i == text.Length || (text[i] is ',' or ' ' && depth == 0))
            {
                if (text[start..i].Trim() is { Length: > 0 } entry)
                {
                    yield return entry;
                }
                start = i + 1;
            }
            else if (text[i] == '[')
            {
                depth++;
            }
            else if (text[i] == ']')
            {
                depth--;
            }
        }
    }
}
