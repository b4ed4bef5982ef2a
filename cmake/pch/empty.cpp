// The translation unit that owns meshguard_user_pch (cmake/MeshguardPch.cmake).
