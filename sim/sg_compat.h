// The SimGrid calls whose names changed after 3.32 (zone constructors, Comm::wait_all), behind
// small wrappers so that moving to a newer SimGrid touches this file only.
//   3.32: sg4::create_star_zone(name), Comm::wait_all(vector)
//   3.35+: Engine::get_netzone_root()->add_netzone_star(name), ActivitySet
#pragma once

#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

namespace vitsim::sim::sg {

namespace sg4 = simgrid::s4u;

inline sg4::NetZone* star_zone(const std::string& name, const sg4::NetZone* parent) {
  sg4::NetZone* z = sg4::create_star_zone(name);
  if (parent != nullptr) z->set_parent(parent);
  return z;
}

inline sg4::NetZone* full_zone(const std::string& name, const sg4::NetZone* parent) {
  sg4::NetZone* z = sg4::create_full_zone(name);
  if (parent != nullptr) z->set_parent(parent);
  return z;
}

inline void wait_all(const std::vector<sg4::CommPtr>& comms) {
  if (!comms.empty()) sg4::Comm::wait_all(comms);
}

}  // namespace vitsim::sim::sg
