using System.Globalization;
using System.Text;
using System.Text.Json;

namespace PerfLab.Tracing;

/// <summary>One distinct stack, frames from the root to the leaf, and how many CPU samples landed on it.</summary>
public sealed record SampledStack(IReadOnlyList<string> Frames, long Samples);

/// <summary>Writes CPU samples in the formats flame-graph viewers open: folded stacks and speedscope JSON.</summary>
public static class StackExports
{
    /// <summary>Brendan Gregg's folded format: "root;caller;leaf count" per line, as flamegraph.pl and speedscope read.</summary>
    public static string Collapsed(IEnumerable<SampledStack> stacks)
    {
        var text = new StringBuilder();
        foreach (var stack in stacks.Where(s => s.Samples > 0 && s.Frames.Count > 0))
        {
            // ';' separates frames and the last ' ' the count, so neither may appear inside a frame name.
            text.Append(string.Join(';', stack.Frames.Select(f => f.Replace(';', ':').Replace(' ', '_'))))
                .Append(' ')
                .Append(stack.Samples.ToString(CultureInfo.InvariantCulture))
                .Append('\n');
        }
        return text.ToString();
    }

    /// <summary>
    /// A speedscope file (https://www.speedscope.app/file-format-schema.json) with one "sampled" profile whose
    /// weights are sample counts, so the viewer's totals equal the number of samples.
    /// </summary>
    public static string Speedscope(IEnumerable<SampledStack> stacks, string name)
    {
        var frameIndex = new Dictionary<string, int>(StringComparer.Ordinal);
        var samples = new List<int[]>();
        var weights = new List<long>();
        foreach (var stack in stacks.Where(s => s.Samples > 0 && s.Frames.Count > 0))
        {
            samples.Add(stack.Frames.Select(f => IndexOf(frameIndex, f)).ToArray());
            weights.Add(stack.Samples);
        }
        var file = new
        {
            schema = "https://www.speedscope.app/file-format-schema.json",
            name,
            exporter = "perflab",
            activeProfileIndex = 0,
            shared = new { frames = frameIndex.OrderBy(p => p.Value).Select(p => new { name = p.Key }).ToArray() },
            profiles = new[]
            {
                new
                {
                    type = "sampled", name, unit = "none", startValue = 0L, endValue = weights.Sum(),
                    samples, weights,
                },
            },
        };
        return JsonSerializer.Serialize(file).Replace("\"schema\":", "\"$schema\":", StringComparison.Ordinal);
    }

    private static int IndexOf(Dictionary<string, int> index, string frame)
    {
        if (!index.TryGetValue(frame, out var i))
        {
            i = index.Count;
            index.Add(frame, i);
        }
        return i;
    }
}
