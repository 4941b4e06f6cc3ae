package readmodel

// HotelTables counts the cities whose flat hotel table the model keeps.
func (m *Model) HotelTables() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.hotels.count()
}

// RentalTables counts the cities whose flat rental table the model keeps.
func (m *Model) RentalTables() int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.rentals.count()
}

// BeforeApply has f run after each tracked COMMIT, before its claims are applied.
func BeforeApply(m *Model, f func()) { m.beforeApply = f }
