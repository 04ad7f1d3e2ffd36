package dummy

// CreateItem is mdtest's file create in one call, as Create, WriteAt of
// data at offset 0 and Close make it: it sleeps --dummy.delay-create,
// --dummy.delay-xfer when there is data, and --dummy.delay-close. Unlike
// them it records no size (Stat and FileSize then say 0): mdtest never
// asks one, and a record per item would make the backend's memory grow
// with mdtest's -n. It allocates nothing and keeps no path.
func (b *Backend) CreateItem(_ string, data []byte) error {
	sleep(b.delayCreate)
	if len(data) > 0 {
		sleep(b.delayXfer)
	}
	sleep(b.delayClose)
	return nil
}

// ReadItem is mdtest's file read in one call, as Open, ReadAt of len(buf)
// bytes at offset 0 and Close make it: it sleeps --dummy.delay-xfer when
// buf is not empty and --dummy.delay-close, and returns len(buf) without
// writing buf.
func (b *Backend) ReadItem(_ string, buf []byte) (int, error) {
	if len(buf) > 0 {
		sleep(b.delayXfer)
	}
	sleep(b.delayClose)
	return len(buf), nil
}

// StatItem is Stat without the FileInfo: it succeeds for every path.
func (b *Backend) StatItem(string) error { return nil }
