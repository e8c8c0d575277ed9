#include "commands/features.h"

#include <algorithm>

namespace tern::commands {

bool is_supported(Feature feature) {
  switch (feature) {
    case Feature::TcpNodelay:
    case Feature::MutationSeqno:
    case Feature::Xerror:
    case Feature::SelectBucket:
    case Feature::Snappy:
    case Feature::Json:
    case Feature::Duplex:
    case Feature::ClustermapChangeNotification:
    case Feature::UnorderedExecution:
    case Feature::Tracing:
    case Feature::AltRequestSupport:
    case Feature::SyncReplication:
    case Feature::Collections:
    case Feature::PreserveTtl:
    case Feature::Xattr:  // extended attributes: sub-document XATTR paths, XATTR datatype
    case Feature::SubdocCreateAsDeleted:
    case Feature::SubdocBinaryXattr:
      return true;
  }
  return false;
}

std::vector<Feature> negotiate(std::span<const uint16_t> requested) {
  std::vector<Feature> accepted;
  for (uint16_t code : requested) {
    const auto feature = static_cast<Feature>(code);
    if (is_supported(feature) &&
        std::find(accepted.begin(), accepted.end(), feature) == accepted.end()) {
      accepted.push_back(feature);
    }
  }
  const bool duplex =
      std::find(accepted.begin(), accepted.end(), Feature::Duplex) != accepted.end();
  if (!duplex) std::erase(accepted, Feature::ClustermapChangeNotification);
  return accepted;
}

std::string_view feature_name(Feature feature) {
  switch (feature) {
    case Feature::TcpNodelay: return "TCPNODELAY";
    case Feature::MutationSeqno: return "MutationSeqno";
    case Feature::Xattr: return "XATTR";
    case Feature::Xerror: return "XERROR";
    case Feature::SelectBucket: return "SelectBucket";
    case Feature::Snappy: return "Snappy";
    case Feature::Json: return "JSON";
    case Feature::Duplex: return "Duplex";
    case Feature::ClustermapChangeNotification: return "ClustermapChangeNotification";
    case Feature::UnorderedExecution: return "UnorderedExecution";
    case Feature::Tracing: return "Tracing";
    case Feature::AltRequestSupport: return "AltRequestSupport";
    case Feature::SyncReplication: return "SyncReplication";
    case Feature::Collections: return "Collections";
    case Feature::PreserveTtl: return "PreserveTtl";
    case Feature::SubdocCreateAsDeleted: return "SubdocCreateAsDeleted";
    case Feature::SubdocBinaryXattr: return "SubdocBinaryXattr";
  }
  return "unknown";
}

}  // namespace tern::commands
