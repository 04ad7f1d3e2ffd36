package client

// CloseConn closes c's connection under it, as its process dying does:
// for the tests of an engine that loses a client.
func (c *Client) CloseConn() error { return c.conn.Close() }

// DialVersion is Dial speaking protocol version v: for the tests of the
// hello, which speak others.
var DialVersion = dial
