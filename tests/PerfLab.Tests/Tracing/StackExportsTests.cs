using System.Text.Json;
using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

public sealed class StackExportsTests
{
    private static readonly SampledStack[] s_stacks =
    [
        new(["Main", "Handler", "Json.Write"], 7),
        new(["Main", "Handler"], 3),
        new(["Main", "Gc Work;x"], 2),
    ];

    [Fact]
    public void Collapsed_KnownStacks_OneFoldedLinePerStack()
    {
        var text = StackExports.Collapsed(s_stacks);

        Assert.Equal("Main;Handler;Json.Write 7\nMain;Handler 3\nMain;Gc_Work:x 2\n", text);
    }

    [Fact]
    public void Speedscope_KnownStacks_HasRequiredFieldsAndWeightsSumToSamples()
    {
        using var json = JsonDocument.Parse(StackExports.Speedscope(s_stacks, "test"));
        var root = json.RootElement;

        Assert.Equal("https://www.speedscope.app/file-format-schema.json", root.GetProperty("$schema").GetString());
        var frames = root.GetProperty("shared").GetProperty("frames");
        Assert.Equal(4, frames.GetArrayLength());
        var profile = root.GetProperty("profiles")[0];
        Assert.Equal("sampled", profile.GetProperty("type").GetString());
        Assert.Equal(12, profile.GetProperty("weights").EnumerateArray().Sum(w => w.GetInt64()));
        Assert.Equal(12, profile.GetProperty("endValue").GetInt64());
        Assert.Equal([0, 1, 2], profile.GetProperty("samples")[0].EnumerateArray().Select(e => e.GetInt32()));
    }
}
