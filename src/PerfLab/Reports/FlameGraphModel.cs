using PerfLab.Results;

namespace PerfLab.Reports;

/// <summary>
/// One frame of a flame graph in d3-flame-graph's input shape: <c>value</c> includes the children. Values are shares
/// (percent) of the variant's top-stack samples, so two variants traced for different lengths compare. <c>delta</c>, in
/// the differential graph only, is the variant's share minus the baseline's share of the same stack prefix (percentage
/// points; positive: more time there than in the baseline).
/// </summary>
internal sealed record FlameNode(string Name, double Value, double? Delta, IReadOnlyList<FlameNode> Children);

/// <summary>A variant's flame graph and, for a variant that is not the baseline, its differential against the baseline.</summary>
internal sealed record FlameGraphs(string Variant, long Samples, long CpuSamples, FlameNode Tree, string? Baseline,
    FlameNode? Differential);

internal static class FlameGraphModel
{
    /// <summary>The graphs of every variant with stacks, in variant order; empty when no evidence has stacks.</summary>
    public static IReadOnlyList<FlameGraphs> Build(ExperimentResult experiment)
    {
        var evidence = TimeContent.Evidence(experiment).Where(e => e.TopStacks.Count > 0).ToList();
        var baseline = evidence.FirstOrDefault(e => e.Variant == experiment.Baseline);
        var baselineTrie = baseline is null ? null : Trie.From(baseline.TopStacks);
        return evidence.Select(e =>
        {
            var trie = Trie.From(e.TopStacks);
            var differential = baselineTrie is not null && e != baseline
                ? Node(trie, trie.Samples, baselineTrie, differential: true)
                : null;
            return new FlameGraphs(e.Variant, trie.Samples, e.CpuSamples, Node(trie, trie.Samples, null, differential: false),
                differential is null ? null : baseline!.Variant, differential);
        }).ToList();
    }

    // In the differential graph a stack prefix the baseline lacks (baseline null) has the whole of its share as delta.
    private static FlameNode Node(Trie trie, long total, Trie? baseline, bool differential)
    {
        var share = Share(trie.Samples, total);
        double? delta = differential ? share - Share(baseline?.Samples ?? 0, baseline?.Root.Samples ?? 0) : null;
        var children = trie.Children.Values
            .OrderByDescending(c => c.Samples)
            .ThenBy(c => c.Name, StringComparer.Ordinal)
            .Select(c => Node(c, total, baseline?.Children.GetValueOrDefault(c.Name), differential))
            .ToList();
        return new FlameNode(trie.Name, Math.Round(share, 4), delta is { } d ? Math.Round(d, 4) : null, children);
    }

    private static double Share(long samples, long total) => total > 0 ? samples * 100.0 / total : 0;

    // Stacks merged by common prefix (root first); each node counts the samples of every stack through it.
    private sealed class Trie(string name, Trie? parent)
    {
        public string Name { get; } = name;

        public Trie Root => parent?.Root ?? this;

        public long Samples { get; private set; }

        public Dictionary<string, Trie> Children { get; } = new(StringComparer.Ordinal);

        public static Trie From(IReadOnlyList<StackSample> stacks)
        {
            var root = new Trie("all", null);
            foreach (var stack in stacks.Where(s => s.Samples > 0))
            {
                root.Samples += stack.Samples;
                var node = root;
                foreach (var frame in stack.Frames)
                {
                    if (!node.Children.TryGetValue(frame, out var child))
                    {
                        child = new Trie(frame, node);
                        node.Children.Add(frame, child);
                    }
                    child.Samples += stack.Samples;
                    node = child;
                }
            }
            return root;
        }
    }
}
