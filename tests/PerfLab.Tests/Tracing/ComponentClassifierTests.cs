using PerfLab.Tracing;
using Xunit;

namespace PerfLab.Tests.Tracing;

public sealed class ComponentClassifierTests
{
    private readonly ComponentClassifier _classifier = new("PerfLab.Sut");

    [Fact]
    public void Classify_SerializerCalledFromApp_InnermostMatchIsJson()
    {
        string[] frames = ["Microsoft.AspNetCore.Server.Kestrel!Microsoft.AspNetCore.Run", "PerfLab.Sut!PerfLab.Sut.Orders.Get",
            "System.Text.Json!System.Text.Json.JsonSerializer.Serialize", "System.Private.CoreLib!System.Buffer.Memmove"];

        Assert.Equal(Component.Json, _classifier.Classify(frames));
    }

    [Fact]
    public void Classify_AppLoopUnderKestrel_IsApp()
    {
        string[] frames = ["Microsoft.AspNetCore.Server.Kestrel!Microsoft.AspNetCore.Run", "PerfLab.Sut!PerfLab.Sut.Lock.Spin"];

        Assert.Equal(Component.App, _classifier.Classify(frames));
    }

    [Fact]
    public void Classify_NoFrameMatches_IsOther()
    {
        Assert.Equal(Component.Other, _classifier.Classify(["System.Private.CoreLib!System.Threading.Thread.Start"]));
    }

    [Fact]
    public void Of_NativeGcFrame_IsGc()
    {
        Assert.Equal(Component.Gc, _classifier.Of("libcoreclr.so!WKS::gc_heap::mark_phase"));
    }
}
