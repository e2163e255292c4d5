using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace PerfLab.Sut.Hosting;

public static class KestrelSetup
{
    /// <summary>
    /// Binds Kestrel's limits from the "Kestrel" section too (the host binds only endpoints from it), so that the
    /// http2-window experiment can set Kestrel:Limits:Http2:InitialConnectionWindowSize and InitialStreamWindowSize.
    /// Kestrel:EndpointDefaults:Protocols=Http2 serves HTTP/2 cleartext (h2c, prior knowledge).
    /// </summary>
    public static void AddKestrelLimits(this WebApplicationBuilder builder)
    {
        var limits = builder.Configuration.GetSection("Kestrel:Limits");
        if (limits.Exists())
        {
            builder.Services.Configure<KestrelServerOptions>(options => limits.Bind(options.Limits));
        }
    }
}
