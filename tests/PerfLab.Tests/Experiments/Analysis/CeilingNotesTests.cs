using System.Globalization;
using PerfLab.Experiments.Analysis;
using PerfLab.Results;
using PerfLab.Tests.Reports;

namespace PerfLab.Tests.Experiments.Analysis;

public sealed class CeilingNotesTests
{
    [Fact]
    public void Of_PlatformAndAnExperiment_StatesTheCeilingAndTheBaselinesShareOfIt()
    {
        var serializer = ReportFixtures.Sample().Experiments[0];
        var baseline = serializer.Summaries.First(s => s.Variant == serializer.Baseline);
        var platform = serializer with { Name = "platform", Summaries = [baseline with { AllRps = new Estimate(10000, 9000, 11000, 3) }] };

        var notes = CeilingNotes.Of([platform, serializer]);

        Assert.Equal(2, notes.Count);
        Assert.StartsWith("Platform ceiling on this machine: 10000 RPS", notes[0], StringComparison.Ordinal);
        var share = baseline.AllRps!.Median / 10000 * 100;
        Assert.Equal(string.Create(CultureInfo.InvariantCulture,
            $"serializer ({serializer.Baseline}): {baseline.AllRps.Median:0.#} RPS = {share:0.0##} % of the ceiling."), notes[1]);
    }

    [Fact]
    public void Of_NoPlatformExperiment_IsEmpty()
    {
        Assert.Empty(CeilingNotes.Of(ReportFixtures.Sample().Experiments));
    }
}
