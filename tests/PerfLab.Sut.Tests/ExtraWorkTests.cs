using System.Diagnostics;

namespace PerfLab.Sut.Tests;

public sealed class ExtraWorkTests
{
    [Fact]
    public async Task ExtraWork_ThirtyMilliseconds_EveryRequestTakesAtLeastThatAndInfoReportsIt()
    {
        await using var sut = await SutHost.StartAsync(null, new Dictionary<string, string> { ["ExtraWorkMicroseconds"] = "30000" });
        var info = await sut.InfoJsonAsync();
        Assert.Equal(30000, info.GetProperty("extraWorkMicroseconds").GetInt32());
        var settings = new Dictionary<string, string> { ["ExtraWorkMicroseconds"] = "30000" };
        Assert.Empty(VariantCheck.Mismatches(new SutLaunch(settings, new Dictionary<string, string>(), null), await sut.InfoAsync()));
        settings["ExtraWorkMicroseconds"] = "1000";
        Assert.Contains(VariantCheck.Mismatches(new SutLaunch(settings, new Dictionary<string, string>(), null), await sut.InfoAsync()),
            m => m.StartsWith("ExtraWorkMicroseconds: asked for 1000, /info reports 30000", StringComparison.Ordinal));

        for (var i = 0; i < 5; i++)
        {
            var clock = Stopwatch.StartNew();
            using var response = await sut.Client.GetAsync("/json");
            clock.Stop();
            response.EnsureSuccessStatusCode();
            // The spin happens before the endpoint runs, so no request can answer sooner than the injected cost.
            Assert.True(clock.Elapsed >= TimeSpan.FromMilliseconds(30), $"request {i} took {clock.Elapsed.TotalMilliseconds:0.0} ms");
        }
    }

    [Fact]
    public async Task ExtraWork_Default_IsOff()
    {
        await using var sut = await SutHost.StartAsync(null);
        var info = await sut.InfoJsonAsync();
        Assert.Equal(0, info.GetProperty("extraWorkMicroseconds").GetInt32());
    }
}
