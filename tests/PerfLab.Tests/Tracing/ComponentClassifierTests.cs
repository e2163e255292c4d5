using PerfLab.Tracing;

namespace PerfLab.Tests.Tracing;

public sealed class ComponentClassifierTests
{
    private readonly ComponentClassifier _classifier = new(new AppCode("PerfLab.Sut"));

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

    [Fact]
    public void Classify_AppOutsideAnyNamespace_IsAppByItsModule()
    {
        // A user's app with top-level statements: its lambdas are in the global namespace, only the module says whose they are.
        var classifier = new ComponentClassifier(new AppCode("PerfLab.Sut", "TinyShop"));
        string[] lambda = ["Microsoft.AspNetCore.Server.Kestrel!Microsoft.AspNetCore.Run", "TinyShop!Program+<>c.<<Main>$>b__0_1(int32)"];
        string[] generated = ["TinyShop!Microsoft.AspNetCore.Http.Generated.<GeneratedRouteBuilderExtensions_g>F56B68D2B55B5B7B373BA2E4796D897848BC0F04A969B1AF6260183E71B7A9D2__GeneratedRouteBuilderExtensionsCore.MapGet0(...)"];

        Assert.Equal(Component.App, classifier.Classify(lambda));
        Assert.Equal(Component.AspNetCore, classifier.Classify(generated));
        // Without the module, the same lambda is no one's: the CPU breakdown would have called it Kestrel's.
        Assert.Equal(Component.AspNetCore, _classifier.Classify(lambda));
    }
}
